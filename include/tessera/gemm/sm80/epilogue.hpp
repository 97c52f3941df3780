// The sm80 GEMM's epilogue: the block's accumulators (gemm/sm80/mainloop.hpp) to D. Each warp
// stages its accumulators through the freed stages and runs the chain (Cfg::Epilogue) on quads of
// D read back from them, stored as vectors. Split-K: each slice writes its floats to a workspace
// instead, which a second kernel (reduce_splits, gemm/data_parallel.hpp) sums and runs the chain
// on. docs/gemm.md has the details.
//
//   Mainloop<Cfg>::run(load, k_tiles, acc, smem, tid);   // ends with every stage free
//   Epilogue<Cfg>::store(p, acc, w, tid, smem);
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/gemm/data_parallel.hpp"
#include "tessera/gemm/sm80/mainloop.hpp"
#include "tessera/gemm/sm80/stage.hpp"

namespace tessera::gemm::sm80 {

template <class Cfg>
struct Epilogue {
  using Params = DataParallelParams<Cfg>;
  using Acc = typename Cfg::ElementAccumulator;
  using ED = typename Cfg::ElementD;
  using Main = Mainloop<Cfg>;
  using Tile = typename Main::Tile;
  using Traits = typename Main::Traits;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN;
  static constexpr int AtomsM = Main::AtomsM, AtomsN = Main::AtomsN;
  static constexpr int smem_bytes = StageLayout<Cfg>::smem_bytes;  // the stages' bytes, free to stage D

  // Value i of thread t sits at (row0(t) + value_row(i), col0(t) + value_col(i)): the block's C
  // layout is a sum of a thread part and a value part that never carry into each other (both stay
  // inside the tile; test/unit/tile/test_mma_tile.cpp checks it).
  TESSERA_HD static constexpr int value_row(int i) { return int(Tile::c_layout()(0, i)) % BM; }
  TESSERA_HD static constexpr int value_col(int i) { return int(Tile::c_layout()(0, i)) / BM; }

  // Each warp stages its accumulators through shared memory, in rounds of RR rows of its WM x WN
  // tile (one round when the stages' memory holds the whole tile), and reads them back four
  // contiguous elements of D per lane: the chain runs in a loop over those quads (one copy of the
  // chain's code, not one per accumulator: compile time), and the stores are 4-element vectors
  // that consecutive lanes place side by side (full sectors). Rows are padded by 8 floats, so
  // that the 8-byte accumulator-pair writes of a half-warp (four rows) fall on distinct banks.
  static constexpr int WM = AtomsM * Traits::M, WN = AtomsN * Traits::N;
  static constexpr int stage_pitch = WN + 8;  // floats per staged row
  static constexpr int warps = Cfg::warps_m * Cfg::warps_n;
  static constexpr int stage_rounds = [] {
    int r = 1;
    while (warps * (WM / r) * stage_pitch * 4 > smem_bytes && AtomsM % (2 * r) == 0) r *= 2;
    return r;
  }();
  static constexpr int RR = WM / stage_rounds;  // rows per round
  static_assert(warps * RR * stage_pitch * 4 <= smem_bytes,
                "gemm::sm80: the epilogue's staging needs more shared memory than the pipeline has; use more Stages "
                "or a larger BlockTile K");
  static_assert(RR * WN / 4 % (4 * 32) == 0, "gemm::sm80: a round of the epilogue must be whole passes of the warp");

  // Work item w's tile of D (or its K slice's partial tile), after the mainloop has freed the stages.
  TESSERA_DEVICE static void store(Params const& p, Acc const (&acc)[Tile::c_values], WorkItem const& w, int tid,
                                   char* smem) {
    int const lane = tid % 32, warp = tid / 32;
    int const tm = w.tm, tn = w.tn, batch = w.batch;
    if (p.k_splits > 1) {
      int const t0 = int(Tile::c_layout()(tid, 0));
      int const row0 = tm * BM + t0 % BM, col0 = tn * BN + t0 / BM;
      TESSERA_UNROLL
      for (int i = 0; i < Tile::c_values; ++i) {
        int const row = row0 + value_row(i), col = col0 + value_col(i);
        if (row < p.m && col < p.n)
          p.partials[((std::int64_t(w.split) * p.batch_count + batch) * p.m + row) * p.n + col] = float(acc[i]);
      }
      return;
    }
    int const warp_m = warp % Cfg::warps_m, warp_n = warp / Cfg::warps_m;
    float* const region = reinterpret_cast<float*>(smem) + warp * RR * stage_pitch;
    int const l0 = int(Tile::c_layout()(lane, 0));  // the lane's origin in its warp's tile
    int const lr0 = l0 % BM, lc0 = l0 / BM;
    int const row_base = tm * BM + warp_m * WM, col_base = tn * BN + warp_n * WN;
    bool const interior = (tm + 1) * BM <= p.m && (tn + 1) * BN <= p.n;
    ED* const d = p.d + batch * p.batch_stride_d;
    // A lane's quad runs along D's contiguous dimension; stored as one vector when aligned.
    bool const row_major = p.d_col_stride == 1;
    std::int64_t const step = row_major ? p.d_col_stride : p.d_row_stride;  // between a quad's elements
    bool const vectors = step == 1 && (row_major ? p.d_row_stride : p.d_col_stride) % 4 == 0 &&
                         p.batch_stride_d % 4 == 0 && reinterpret_cast<std::uintptr_t>(p.d) % (4 * sizeof(ED)) == 0;
    struct alignas(4 * sizeof(ED)) Quad {
      ED v[4];
    };
    bool const fast = interior && row_major && vectors;  // uniform over the block
    TESSERA_UNROLL
    for (int round = 0; round < stage_rounds; ++round) {
      if (round > 0) __syncwarp();  // the previous round's reads are done
      TESSERA_UNROLL
      for (int i = 0; i < Tile::c_values; i += 2) {
        int const r = lr0 + value_row(i) - round * RR;
        if (value_row(i) / RR != round) continue;  // resolved at compile time
        *reinterpret_cast<float2*>(region + r * stage_pitch + lc0 + value_col(i)) = float2{float(acc[i]), float(acc[i + 1])};
      }
      __syncwarp();
      if (fast) {
        // The common case (an interior tile of a row-major D with aligned rows): no bounds, one
        // layout, a row pointer per round. Four quads per iteration, as below.
        ED* const base = d + std::int64_t(row_base + round * RR) * p.d_row_stride + col_base;
        TESSERA_UNROLL_N(4)
        for (int q = lane; q < RR * WN / 4; q += 32) {
          int const r = q / (WN / 4), c = (q % (WN / 4)) * 4;
          float4 const x = *reinterpret_cast<float4 const*>(region + r * stage_pitch + c);
          float const v[4] = {x.x, x.y, x.z, x.w};
          int const row = row_base + round * RR + r, col = col_base + c;
          Quad out;
          TESSERA_UNROLL
          for (int j = 0; j < 4; ++j)
            out.v[j] = epilogue::convert_output<ED>(p.epilogue(v[j], epilogue::Coord::in_batch(row, col + j, batch, p.batch_columns)));
          *reinterpret_cast<Quad*>(base + r * p.d_row_stride + c) = out;
        }
        continue;
      }
      // Four quads per iteration: their operand loads (bias, residual) are in flight together.
      TESSERA_UNROLL_N(4)
      for (int q = lane; q < RR * WN / 4; q += 32) {
        // Row-major D: quads along a row, consecutive lanes side by side. Column-major: down a
        // column, consecutive lanes in consecutive columns (conflict-free reads of the stage).
        int const r = row_major ? q / (WN / 4) : (q / WN) * 4;
        int const c = row_major ? (q % (WN / 4)) * 4 : q % WN;
        float v[4];
        if (row_major) {
          float4 const x = *reinterpret_cast<float4 const*>(region + r * stage_pitch + c);
          v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
        } else {
          TESSERA_UNROLL
          for (int j = 0; j < 4; ++j) v[j] = region[(r + j) * stage_pitch + c];
        }
        int const row = row_base + round * RR + r, col = col_base + c;
        Quad out;
        bool in[4];
        TESSERA_UNROLL
        for (int j = 0; j < 4; ++j) {
          int const rj = row_major ? row : row + j, cj = row_major ? col + j : col;
          in[j] = interior || (rj < p.m && cj < p.n);  // the chain reads operands of D's extent only
          out.v[j] = epilogue::convert_output<ED>(in[j] ? p.epilogue(v[j], epilogue::Coord::in_batch(rj, cj, batch, p.batch_columns)) : 0.0f);
        }
        ED* const at = d + row * p.d_row_stride + col * p.d_col_stride;
        if (vectors && in[3]) {  // the quad's last element in bounds: all four are
          *reinterpret_cast<Quad*>(at) = out;
        } else {
          TESSERA_UNROLL
          for (int j = 0; j < 4; ++j)
            if (in[j]) at[j * step] = out.v[j];
        }
      }
    }
  }
};

}  // namespace tessera::gemm::sm80
