// The sm80 convolution's operand loader (Fprop): k-tile kt of an output tile is BK channels c0 ..
// of one filter tap (conv::k_tile), so its A tile is BM output pixels' input pixels through that
// tap, BK channels each -- gathered row by row with 16-byte cp.async, zero-filled where the tap
// reads padding or the row is past the output -- and its B tile is the filters' BK values at that
// tap and channel block: the GEMM's B (K-major rows T R S C / g long), copied as the GEMM copies it.
// It plugs into gemm::sm80::Kernel<GemmCfg, Im2colLoader<GemmCfg>> (the loader contract:
// gemm/sm80/tiled_loader.hpp). Needs C / groups a multiple of BK (a k-tile is then one tap) and of
// 8 (16-byte vectors of 16-bit channels); conv::Conv checks both.
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/sm80/cp_async.hpp"
#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/gemm/data_parallel.hpp"
#include "tessera/gemm/sm80/stage.hpp"
#include "tessera/pipeline/gmem_to_smem.hpp"

namespace tessera::conv::sm80 {

// The kernel's parameters: the GEMM's (A = X, B = W, D = Y; group g is batch entry g: X's
// channels, W's filters and Y's channels of the group are batch_stride_* apart) and the problem.
template <class GemmCfg>
struct Im2colParams : gemm::DataParallelParams<GemmCfg> {
  Problem problem;
};

template <class GemmCfg>
struct Im2colLoader {
  using Params = Im2colParams<GemmCfg>;
  using Stage = gemm::sm80::StageLayout<GemmCfg>;
  using EA = typename GemmCfg::ElementA;
  using EB = typename GemmCfg::ElementB;
  static constexpr int BM = GemmCfg::BM, BN = GemmCfg::BN, BK = GemmCfg::BK, Threads = GemmCfg::threads, Stages = GemmCfg::stages;
  static_assert(GemmCfg::a_k_major && GemmCfg::b_k_major, "conv::sm80::Im2colLoader: Fprop's GEMM is TN; use conv::Config's Gemm");
  static constexpr int E = 16 / int(sizeof(EA));  // elements of one 16-byte copy
  static constexpr int per_row = BK / E, row_step = Threads / per_row, rows_per_thread = (BM + row_step - 1) / row_step;
  static_assert(BK % E == 0 && Threads % per_row == 0, "conv::sm80::Im2colLoader: a k-tile row must be whole 16-byte vectors "
                                                      "that the block's threads divide; use BlockTile K = 32 or 64");
  // A's rows are gathered, but a thread's rows are row_step apart as in the GEMM's tile copy, so
  // its destinations are one offset plus a constant per row where that copy's are.
  static_assert(pipeline::TileCopy<BM, BK, Threads, 16, EA, typename Stage::SmemA>::applicable,
                "conv::sm80::Im2colLoader: the A tile's swizzle must keep a thread's rows a constant apart; use the GEMM's tiles");
  using CopyB = pipeline::TileCopy<BN, BK, Threads, 16, EB, typename Stage::SmemB>;
  static_assert(CopyB::applicable, "conv::sm80::Im2colLoader: the filter tile must copy as the GEMM's B does; use the GEMM's tiles");

  gemm::WorkItem w;
  int k_tiles;
  int k_begin;  // the work item's first k-tile (split-K)
  // This thread's rows of the A tile: the image and the first input coordinate of each (the
  // output pixel's coordinate times the stride, less the padding), or n = -1 past the output.
  int n[rows_per_thread];
  Array<int, 3> base[rows_per_thread];
  int col;              // this thread's channel offset in a k-tile row (a multiple of E)
  std::uint32_t dst_a;  // its first vector's byte offset in an A stage
  CopyB copy_b;

  TESSERA_DEVICE Im2colLoader(Params const& p, gemm::WorkItem const& w_, int tid)
      : w(w_),
        k_tiles(0),
        k_begin(w_.split * p.k_tiles_per_split),
        col((tid % per_row) * E),
        dst_a(std::uint32_t(Stage::SmemA::layout()(tid / per_row, (tid % per_row) * E)) * sizeof(EA)),
        copy_b(p.b + w_.batch * p.batch_stride_b, p.ldb, w_.tn * BN, w_.split * p.k_tiles_per_split * BK, tid) {
    int const total = (p.k + BK - 1) / BK;
    k_tiles = min(total - k_begin, p.k_tiles_per_split);
    TESSERA_UNROLL
    for (int i = 0; i < rows_per_thread; ++i) {
      int const row = w.tm * BM + tid / per_row + i * row_step;
      Pixel const o = output_pixel(p.problem, row);
      n[i] = row < p.m ? o.n : -1;
      TESSERA_UNROLL
      for (int dim = 0; dim < 3; ++dim) base[i][dim] = input_coord(p.problem, dim, o.at[dim], 0);
    }
  }

  TESSERA_DEVICE void operator()(Params const& p, char* smem, int stage, int kt) {
    Problem const& pr = p.problem;
    KTile const t = k_tile(pr, BK, k_begin + kt);
    EA const* const x = p.a + w.batch * p.batch_stride_a + t.c0 + col;  // group's channels, this thread's vector
    std::uint32_t const sa = arch::smem_address(smem) + stage * Stage::stage_bytes_a;
    TESSERA_UNROLL
    for (int i = 0; i < rows_per_thread; ++i) {
      if (BM % row_step != 0 && int(threadIdx.x) / per_row + i * row_step >= BM) break;
      int d = 0, h = 0, ww = 0;
      bool in = n[i] >= 0;
      TESSERA_UNROLL
      for (int dim = 0; dim < 3; ++dim) {
        int const v = base[i][dim] + t.at[dim] * pr.dilation[dim];
        in = in && v >= 0 && v < pr.input_extent(dim);
        (dim == 0 ? d : dim == 1 ? h : ww) = v;
      }
      std::int64_t const offset = in ? (((std::int64_t(n[i]) * pr.d + d) * pr.h + h) * pr.w + ww) * pr.c : 0;
      arch::cp_async_zfill<16>(sa + dst_a + std::uint32_t(i * row_step * BK * int(sizeof(EA))), x + offset, in ? 16 : 0);
    }
    std::uint32_t const sb = arch::smem_address(smem) + Stages * Stage::stage_bytes_a + stage * Stage::stage_bytes_b;
    copy_b.template copy<true>(sb, p.n, p.k);
    copy_b.advance(0, BK, p.ldb);
  }
};

}  // namespace tessera::conv::sm80
