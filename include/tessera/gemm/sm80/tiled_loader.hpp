// The sm80 GEMM's operand loader: the cp.async copies of one k-tile of A (BM x BK) and of B
// (BN x BK) into a stage (gemm/sm80/stage.hpp). The piece a convolution replaces with its im2col
// gather loader; the mainloop, the epilogue and the kernel stay as they are.
//
// A loader of the sm80 kernel (Kernel<Cfg, Loader> in gemm/sm80/kernel.hpp) provides
//   Loader(Params const& p, WorkItem const& w, int tid);   // device, every thread of the block
//       // p: the kernel's parameters (DataParallelParams<Cfg>); w: the block's work item (output
//       // tile, batch entry, K slice; gemm/data_parallel.hpp); tid: threadIdx.x
//   int k_tiles;                                           // the work item's k-tiles (its K slice)
//   void operator()(Params const& p, char* smem, int stage, int kt);   // device, every thread
//       // issues this thread's copies of the work item's k-tile kt into stage `stage` of the
//       // StageLayout<Cfg> at smem (A's tile and B's, swizzled). Called for kt = 0, 1, 2, ... in
//       // order (state such as source pointers may advance per call), each time into stage
//       // kt % Stages. It issues copies only: the pipeline (pipeline::Multistage) commits one
//       // cp.async group per k-tile, waits and synchronizes. The copies are cp.async or plain
//       // shared stores (both visible after the pipeline's wait and barrier).
//       // Elements past the work item's K must land as zeros (they meet the other operand's
//       // values in the MMAs); rows past M or N may hold anything (they feed only outputs that
//       // are never stored).
// tessera-header: cuda-only
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/gemm/data_parallel.hpp"
#include "tessera/gemm/sm80/stage.hpp"
#include "tessera/pipeline/gmem_to_smem.hpp"

namespace tessera::gemm::sm80 {

// The copies of one work item's A and B k-tiles, with addresses computed once (when the tile
// shape allows it) or per k-tile, called as loader(p, smem, stage, kt) for kt = 0, 1, 2, ... in
// order. The narrow path keeps no per-thread copy state (Empty). VecA, VecB: the bytes of one copy
// of A and of B (pipeline::copy_tile): 16 when the operand is 16-byte aligned, else narrower.
template <class Cfg, int VecA = 16, int VecB = 16>
struct TiledLoader {
  using Params = DataParallelParams<Cfg>;
  using Stage = StageLayout<Cfg>;
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  using SmemA = typename Stage::SmemA;
  using SmemB = typename Stage::SmemB;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, Threads = Cfg::threads, Stages = Cfg::stages;
  static constexpr int stage_bytes_a = Stage::stage_bytes_a, stage_bytes_b = Stage::stage_bytes_b;

  using CopyA = std::conditional_t<Cfg::a_k_major, pipeline::TileCopy<BM, BK, Threads, VecA, EA, SmemA>,
                                   pipeline::TileCopy<BK, BM, Threads, VecA, EA, SmemA>>;
  using CopyB = std::conditional_t<Cfg::b_k_major, pipeline::TileCopy<BN, BK, Threads, VecB, EB, SmemB>,
                                   pipeline::TileCopy<BK, BN, Threads, VecB, EB, SmemB>>;
  static constexpr bool fast = CopyA::applicable && CopyB::applicable;
  struct Empty {};
  WorkItem w;
  int k_begin, k_end, k_tiles;
  std::conditional_t<fast, CopyA, Empty> copy_a;
  std::conditional_t<fast, CopyB, Empty> copy_b;

  TESSERA_DEVICE static int first_k(Params const& p, WorkItem const& w) { return w.split * p.k_tiles_per_split * BK; }
  TESSERA_DEVICE static auto make_a(Params const& p, WorkItem const& w, int tid) {
    if constexpr (fast) {
      EA const* const a = p.a + w.batch * p.batch_stride_a;
      return Cfg::a_k_major ? CopyA(a, p.lda, w.tm * BM, first_k(p, w), tid) : CopyA(a, p.lda, first_k(p, w), w.tm * BM, tid);
    } else {
      return Empty{};
    }
  }
  TESSERA_DEVICE static auto make_b(Params const& p, WorkItem const& w, int tid) {
    if constexpr (fast) {
      EB const* const b = p.b + w.batch * p.batch_stride_b;
      return Cfg::b_k_major ? CopyB(b, p.ldb, w.tn * BN, first_k(p, w), tid) : CopyB(b, p.ldb, first_k(p, w), w.tn * BN, tid);
    } else {
      return Empty{};
    }
  }
  TESSERA_DEVICE TiledLoader(Params const& p, WorkItem const& w_, int tid)
      : w(w_),
        k_begin(first_k(p, w_)),
        k_end(min(p.k, k_begin + p.k_tiles_per_split * BK)),
        k_tiles((k_end - k_begin + BK - 1) / BK),
        copy_a(make_a(p, w_, tid)),
        copy_b(make_b(p, w_, tid)) {}

  TESSERA_DEVICE void operator()(Params const& p, char* smem, int stage, int kt) {
    if constexpr (fast) {
      std::uint32_t const sa = arch::smem_address(smem) + stage * stage_bytes_a;
      std::uint32_t const sb = arch::smem_address(smem) + Stages * stage_bytes_a + stage * stage_bytes_b;
      if constexpr (Cfg::a_k_major) copy_a.template copy<true>(sa, p.m, k_end);
      else copy_a.template copy<false>(sa, k_end, p.m);
      if constexpr (Cfg::b_k_major) copy_b.template copy<true>(sb, p.n, k_end);
      else copy_b.template copy<false>(sb, k_end, p.n);
      copy_a.advance(Cfg::a_k_major ? 0 : BK, Cfg::a_k_major ? BK : 0, p.lda);
      copy_b.advance(Cfg::b_k_major ? 0 : BK, Cfg::b_k_major ? BK : 0, p.ldb);
    } else {
      auto const offset_a = [](int row, int col) { return int(SmemA::layout()(row, col)); };
      auto const offset_b = [](int row, int col) { return int(SmemB::layout()(row, col)); };
      int const tid = threadIdx.x;
      int const k0 = k_begin + kt * BK;
      EA const* const a = p.a + w.batch * p.batch_stride_a;
      EB const* const b = p.b + w.batch * p.batch_stride_b;
      EA* sa = reinterpret_cast<EA*>(smem + stage * stage_bytes_a);
      EB* sb = reinterpret_cast<EB*>(smem + Stages * stage_bytes_a + stage * stage_bytes_b);
      if constexpr (Cfg::a_k_major) {
        pipeline::copy_tile<BM, BK, Threads, VecA>(sa, offset_a, a, p.lda, w.tm * BM, k0, p.m, k_end, tid);
      } else {
        pipeline::copy_tile<BK, BM, Threads, VecA>(sa, offset_a, a, p.lda, k0, w.tm * BM, k_end, p.m, tid);
      }
      if constexpr (Cfg::b_k_major) {
        pipeline::copy_tile<BN, BK, Threads, VecB>(sb, offset_b, b, p.ldb, w.tn * BN, k0, p.n, k_end, tid);
      } else {
        pipeline::copy_tile<BK, BN, Threads, VecB>(sb, offset_b, b, p.ldb, k0, w.tn * BN, k_end, p.n, tid);
      }
    }
  }
};

}  // namespace tessera::gemm::sm80
