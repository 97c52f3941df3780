// One consumer warpgroup's mainloop in the sm90 GEMM: the wgmma over the stages of a work unit's
// k-tiles, into a tile::WgmmaAccum of Rows x BN (Rows = 64 or 128: one or two m64 halves).
//
// Per k-tile it waits on the stage's `full` barrier, issues BK / K wgmma per half over it and, once
// the previous k-tile's wgmma have completed (wgmma_wait_group<1>), releases that stage. The unit's
// first k-step writes the accumulators without reading them (ss_first): no zeroing between two
// tiles (an instruction per register, with the tensor cores idle), and the last tile's values die
// in its epilogue. The first k-tile is issued ahead of the loop without a wait of its own (with its
// wait and release peeled too, ptxas took minutes on long chains; the loop's first wait<1> covers
// it). issue() leaves the last k-tile's wgmma in flight, so that a ping-pong consumer can pass the
// turn before finish() waits for them.
//
//   Mainloop<Cfg>::issue(acc, pipe, stages, pos, k_tiles, row0, thread);   // pos: the unit's first position
//   Mainloop<Cfg>::finish(acc, pipe, pos, thread);                          // pos: one past its last
// tessera-header: cuda-only
#pragma once

#include "tessera/arch/sm90/wgmma.hpp"
#include "tessera/gemm/sm90/stage.hpp"
#include "tessera/tile/wgmma_accum.hpp"

namespace tessera::gemm::sm90 {

template <class Cfg>
struct Mainloop {
  using Stage = StageLayout<Cfg>;
  using Mma = typename Stage::Mma;
  static constexpr int Stages = Cfg::stages;
  // Rows of the tile each consumer computes: all of them (ping-pong) or 64.
  static constexpr int Rows = Cfg::ping_pong ? Cfg::BM : 64, MHalves = Rows / 64;
  using Accum = tile::WgmmaAccum<typename Cfg::ElementAccumulator, Cfg::BN, MHalves>;
  static_assert(Accum::regs_per_half == Mma::regs, "gemm::sm90: the accumulator fragment must be the instruction's");

  // k-tiles [0, k_tiles) of a unit at ring positions pos, pos + 1, ...: all issued, each stage but
  // the last released; pos ends one past the last. A's rows row0 .. row0 + Rows - 1.
  template <class Pipe>
  TESSERA_DEVICE static void issue(Accum& acc, Pipe const& pipe, char* stages, int& pos, int k_tiles, int row0, int thread) {
    auto const issue_stage = [&](char* stage, bool first) {
      TESSERA_UNROLL
      for (int ks = 0; ks < Stage::KSteps; ++ks) {
        std::uint64_t const db = Stage::b_desc(stage, ks);
        TESSERA_UNROLL
        for (int h = 0; h < MHalves; ++h) {
          if (first && ks == 0) Mma::ss_first(acc.regs[h], Stage::a_desc(stage, row0 + 64 * h, ks), db);
          else Mma::ss(acc.regs[h], Stage::a_desc(stage, row0 + 64 * h, ks), db, true);
        }
      }
    };
    pipe.consumer_wait(pos);
    arch::sm90::wgmma_fence();
    issue_stage(stages + pos % Stages * Stage::bytes, true);
    arch::sm90::wgmma_commit_group();
    ++pos;
    for (int kt = 1; kt < k_tiles; ++kt, ++pos) {
      pipe.consumer_wait(pos);
      arch::sm90::wgmma_fence();
      issue_stage(stages + pos % Stages * Stage::bytes, false);
      arch::sm90::wgmma_commit_group();
      arch::sm90::wgmma_wait_group<1>();  // k-tile kt - 1's wgmma are done: its stage is free
      fence(acc);
      if (thread == 0) pipe.consumer_release(pos - 1);
    }
  }

  // Waits for the last k-tile's wgmma and releases its stage (pos: one past it).
  template <class Pipe>
  TESSERA_DEVICE static void finish(Accum& acc, Pipe const& pipe, int pos, int thread) {
    arch::sm90::wgmma_wait_group<0>();
    fence(acc);
    if (thread == 0) pipe.consumer_release(pos - 1);
  }

 private:
  TESSERA_DEVICE static void fence(Accum& acc) {
    TESSERA_UNROLL
    for (int h = 0; h < MHalves; ++h) arch::sm90::wgmma_fence_operands(acc.regs[h]);
  }
};

}  // namespace tessera::gemm::sm90
