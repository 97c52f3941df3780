// The sm80 convolution's operand loaders, one per direction. Each plugs into
// gemm::sm80::Kernel<GemmCfg, Loader> (the loader contract: gemm/sm80/tiled_loader.hpp) with the
// GEMM of conv/implicit_gemm.hpp, one operand gathered from an activation tensor and the other
// read as the GEMM reads it:
//
//   Fprop  A = X gathered (rows: output pixels; a vector: 8 channels of one tap)    B = W (K-major)
//   Dgrad  A = dY gathered (rows: input pixels; a k-tile: BK filters of one tap)    B = W (N-major; the tap's rows)
//   Wgrad  A = dY (M-major)                 B = X gathered (rows: output pixels; columns: (tap, channel))
//
// A gathered tile is copied row by row in 16-byte cp.async vectors along its contiguous channels,
// zero-filled where a row reads padding, lies past the GEMM's extent, or (Dgrad with a stride) no
// output pixel reads the input pixel through the tap: the strided Dgrad computes those zero terms
// (docs/conv.md). Needs the channels of a group a multiple of 8 (16-byte vectors of 16-bit types)
// and, for Dgrad, whose k-tile is one tap, of BlockTile K (Fprop's vectors each find their own
// tap); conv::Conv checks.
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

// The kernel's parameters: the GEMM's (A, B, D the direction's tensors; group g is batch entry g,
// its part of each tensor batch_stride_* elements on) and the problem.
template <class GemmCfg>
struct ConvParams : gemm::DataParallelParams<GemmCfg> {
  Problem problem;
};

// A gathered Rows x Cols tile (Cols contiguous in the stage and in memory) of one stage: thread
// tid copies the vector at column `col` of rows row0, row0 + row_step, ... of the tile; source(i)
// gives its i-th row's address, or null for a zero row.
template <int Rows, int Cols, int Threads, class T, class Smem>
struct RowGather {
  static constexpr int E = 16 / int(sizeof(T));
  static constexpr int per_row = Cols / E, row_step = Threads / per_row, rows = (Rows + row_step - 1) / row_step;
  static_assert(Cols % E == 0 && Threads % per_row == 0, "conv::sm80: a gathered row must be whole 16-byte vectors that the "
                                                        "block's threads divide; use BlockTile extents of 32, 64 or 128");
  // A thread's rows are row_step apart, as in the GEMM's tile copy, so its destinations are one
  // offset plus a constant per row where that copy's are.
  static_assert(pipeline::TileCopy<Rows, Cols, Threads, 16, T, Smem>::applicable,
                "conv::sm80: the tile's swizzle must keep a thread's rows a constant apart; use the GEMM's tiles");
  int row0, col;
  std::uint32_t dst;
  TESSERA_DEVICE explicit RowGather(int tid)
      : row0(tid / per_row), col((tid % per_row) * E), dst(std::uint32_t(Smem::layout()(tid / per_row, (tid % per_row) * E)) * sizeof(T)) {}
  // The tile row of this thread's i-th row.
  TESSERA_DEVICE int row(int i) const { return row0 + i * row_step; }
  // Each of this thread's rows as a pixel of the tile from row `first`: its image (-1 at or past
  // `extent` rows) and base(dim, pixel), its first coordinate in each dimension.
  template <class PixelOf, class BaseOf>
  TESSERA_DEVICE void pixels(int first, int extent, PixelOf&& pixel_of, BaseOf&& base_of, int (&n)[rows],
                             Array<int, 3> (&base)[rows]) const {
    TESSERA_UNROLL
    for (int i = 0; i < rows; ++i) {
      Pixel const x = pixel_of(first + row(i));
      n[i] = first + row(i) < extent ? x.n : -1;
      TESSERA_UNROLL
      for (int dim = 0; dim < 3; ++dim) base[i][dim] = base_of(dim, x);
    }
  }
  // `valid`: an address in the tensor that a zero row names instead (cp.async reads nothing from
  // it, as copy_tile does past an edge).
  template <class Source>
  TESSERA_DEVICE void copy(std::uint32_t stage, T const* valid, Source&& source) const {
    TESSERA_UNROLL
    for (int i = 0; i < rows; ++i) {
      if (Rows % row_step != 0 && row(i) >= Rows) break;
      T const* const src = source(i);
      arch::cp_async_zfill<16>(stage + dst + std::uint32_t(i * row_step * Cols * int(sizeof(T))), src != nullptr ? src : valid,
                               src != nullptr ? 16 : 0);
    }
  }
};

// What the three loaders share: the work item, its k-tiles and the stages' addresses.
template <class GemmCfg>
struct LoaderBase {
  using Params = ConvParams<GemmCfg>;
  using Stage = gemm::sm80::StageLayout<GemmCfg>;
  using EA = typename GemmCfg::ElementA;
  using EB = typename GemmCfg::ElementB;
  static constexpr int BM = GemmCfg::BM, BN = GemmCfg::BN, BK = GemmCfg::BK, Threads = GemmCfg::threads, Stages = GemmCfg::stages;
  gemm::WorkItem w;
  int k_begin, k_tiles;  // the work item's first k-tile and its count (split-K)
  TESSERA_DEVICE LoaderBase(Params const& p, gemm::WorkItem const& w_)
      : w(w_), k_begin(w_.split * p.k_tiles_per_split), k_tiles(min((p.k + BK - 1) / BK - k_begin, p.k_tiles_per_split)) {}
  TESSERA_DEVICE static std::uint32_t stage_a(char* smem, int stage) { return arch::smem_address(smem) + stage * Stage::stage_bytes_a; }
  TESSERA_DEVICE static std::uint32_t stage_b(char* smem, int stage) {
    return arch::smem_address(smem) + Stages * Stage::stage_bytes_a + stage * Stage::stage_bytes_b;
  }
};

// Fprop: A = X through the k-tile's tap, B = W.
template <class GemmCfg>
struct FpropLoader : LoaderBase<GemmCfg> {
  using Base = LoaderBase<GemmCfg>;
  using typename Base::Params;
  using Base::BK, Base::BM, Base::BN, Base::Threads;
  static_assert(GemmCfg::a_k_major && GemmCfg::b_k_major, "conv::sm80::FpropLoader: Fprop's GEMM is TN; use conv::Config's Gemm");
  using Gather = RowGather<BM, BK, Threads, typename Base::EA, typename Base::Stage::SmemA>;
  using CopyB = pipeline::TileCopy<BN, BK, Threads, 16, typename Base::EB, typename Base::Stage::SmemB>;
  static_assert(CopyB::applicable, "conv::sm80::FpropLoader: the filter tile must copy as the GEMM's B does; use the GEMM's tiles");
  Gather gather;
  int n[Gather::rows];              // each row's image (-1 past the output)
  Array<int, 3> base[Gather::rows];  // and its first input coordinate (output coordinate x stride - padding)
  CopyB copy_b;

  TESSERA_DEVICE FpropLoader(Params const& p, gemm::WorkItem const& w, int tid)
      : Base(p, w), gather(tid), copy_b(p.b + w.batch * p.batch_stride_b, p.ldb, w.tn * BN, this->k_begin * BK, tid) {
    gather.pixels(
        w.tm * BM, p.m, [&](int row) { return output_pixel(p.problem, row); },
        [&](int dim, Pixel const& o) { return input_coord(p.problem, dim, o.at[dim], 0); }, n, base);
  }

  // This thread's vector of the k-tile is column k = kt BK + its column of the GEMM's K: channels
  // k mod (C / g) .. + 7 of tap k / (C / g) (C / g a multiple of 8, so a vector never straddles two
  // taps; where C / g is a multiple of BK too, the whole k-tile is one tap). Past K: zeros.
  TESSERA_DEVICE void operator()(Params const& p, char* smem, int stage, int kt) {
    Problem const& pr = p.problem;
    int const cg = pr.c_per_group(), k = (this->k_begin + kt) * BK + gather.col;
    Tap const t = tap(pr, k, cg);
    bool const in_k = k < p.k;
    auto const* const x = p.a + this->w.batch * p.batch_stride_a + t.channel;
    gather.copy(Base::stage_a(smem, stage), x, [&](int i) -> decltype(x) {
      Array<int, 3> at{};
      bool in = in_k && n[i] >= 0;
      TESSERA_UNROLL
      for (int dim = 0; dim < 3; ++dim) {
        at[dim] = base[i][dim] + t.at[dim] * pr.dilation[dim];
        in = in && at[dim] >= 0 && at[dim] < pr.input_extent(dim);
      }
      return in ? x + (((std::int64_t(n[i]) * pr.d + at[0]) * pr.h + at[1]) * pr.w + at[2]) * pr.c : nullptr;
    });
    copy_b.template copy<true>(Base::stage_b(smem, stage), p.n, p.k);
    copy_b.advance(0, BK, p.ldb);
  }
};

// Dgrad: A = dY through the k-tile's tap, backwards (the output pixel that reads each input pixel);
// B = the tap's rows of W (BK filters, C / g channels each, T R S C / g apart).
template <class GemmCfg>
struct DgradLoader : LoaderBase<GemmCfg> {
  using Base = LoaderBase<GemmCfg>;
  using typename Base::Params;
  using Base::BK, Base::BM, Base::BN, Base::Threads;
  static_assert(GemmCfg::a_k_major && !GemmCfg::b_k_major, "conv::sm80::DgradLoader: Dgrad's GEMM reads B N-major; use conv::Config's Gemm");
  using Gather = RowGather<BM, BK, Threads, typename Base::EA, typename Base::Stage::SmemA>;
  using CopyB = pipeline::TileCopy<BK, BN, Threads, 16, typename Base::EB, typename Base::Stage::SmemB>;
  static_assert(CopyB::applicable, "conv::sm80::DgradLoader: the filter tile must copy as the GEMM's B does; use the GEMM's tiles");
  Gather gather;
  int n[Gather::rows];              // each row's image (-1 past the input)
  Array<int, 3> base[Gather::rows];  // and its input coordinate plus the padding
  int tid;

  TESSERA_DEVICE DgradLoader(Params const& p, gemm::WorkItem const& w, int tid_) : Base(p, w), gather(tid_), tid(tid_) {
    gather.pixels(
        w.tm * BM, p.m, [&](int row) { return input_pixel(p.problem, row); },
        [&](int dim, Pixel const& x) { return x.at[dim] + p.problem.pad_before[dim]; }, n, base);
  }

  TESSERA_DEVICE void operator()(Params const& p, char* smem, int stage, int kt) {
    Problem const& pr = p.problem;
    KTile const t = k_tile(pr, BK, this->k_begin + kt, pr.k_per_group());  // (tap, first filter of the group's)
    auto const* const dy = p.a + this->w.batch * p.batch_stride_a + t.c0 + gather.col;
    gather.copy(Base::stage_a(smem, stage), dy, [&](int i) -> decltype(dy) {
      Array<int, 3> o{};
      bool in = n[i] >= 0;
      TESSERA_UNROLL
      for (int dim = 0; dim < 3; ++dim) {
        int const v = base[i][dim] - t.at[dim] * pr.dilation[dim];
        o[dim] = v / pr.stride[dim];
        in = in && v >= 0 && v % pr.stride[dim] == 0 && o[dim] < pr.output_extent(dim);
      }
      return in ? dy + (((std::int64_t(n[i]) * pr.z() + o[0]) * pr.p() + o[1]) * pr.q() + o[2]) * pr.k : nullptr;
    });
    // B's rows: filters g Kg + c0 .. of tap t, each T R S C / g long.
    int const taps = pr.t * pr.r * pr.s, tap = (t.at[0] * pr.r + t.at[1]) * pr.s + t.at[2];
    auto const* const w = p.b + this->w.batch * p.batch_stride_b + std::int64_t(tap) * pr.c_per_group();
    CopyB const copy_b(w, std::int64_t(taps) * pr.c_per_group(), t.c0, this->w.tn * BN, tid);
    copy_b.template copy<false>(Base::stage_b(smem, stage), pr.k_per_group(), p.n);
  }
};

// Wgrad: A = dY read as the GEMM reads an M-major A (its K filters contiguous per output pixel);
// B = X gathered: a k-tile is BK output pixels, and each thread's column a fixed (tap, channels).
template <class GemmCfg>
struct WgradLoader : LoaderBase<GemmCfg> {
  using Base = LoaderBase<GemmCfg>;
  using typename Base::Params;
  using Base::BK, Base::BM, Base::BN, Base::Threads;
  static_assert(!GemmCfg::a_k_major && !GemmCfg::b_k_major, "conv::sm80::WgradLoader: Wgrad's GEMM is NN; use conv::Config's Gemm");
  using CopyA = pipeline::TileCopy<BK, BM, Threads, 16, typename Base::EA, typename Base::Stage::SmemA>;
  static_assert(CopyA::applicable, "conv::sm80::WgradLoader: the gradient tile must copy as the GEMM's A does; use the GEMM's tiles");
  using Gather = RowGather<BK, BN, Threads, typename Base::EB, typename Base::Stage::SmemB>;
  CopyA copy_a;
  Gather gather;
  Tap column;  // this thread's column of B: its tap and first channel (-1: past N)

  TESSERA_DEVICE WgradLoader(Params const& p, gemm::WorkItem const& w, int tid)
      : Base(p, w),
        copy_a(p.a + w.batch * p.batch_stride_a, p.lda, this->k_begin * BK, w.tm * BM, tid),
        gather(tid),
        column(tap(p.problem, w.tn * BN + gather.col, p.problem.c_per_group())) {
    if (w.tn * BN + gather.col >= p.n) column.channel = -1;
  }

  TESSERA_DEVICE void operator()(Params const& p, char* smem, int stage, int kt) {
    Problem const& pr = p.problem;
    copy_a.template copy<false>(Base::stage_a(smem, stage), p.k, p.m);
    copy_a.advance(BK, 0, p.lda);
    auto const* const x = p.b + this->w.batch * p.batch_stride_b + max(column.channel, 0);
    int const k0 = (this->k_begin + kt) * BK;
    gather.copy(Base::stage_b(smem, stage), p.b + this->w.batch * p.batch_stride_b, [&](int i) -> decltype(x) {
      int const row = k0 + gather.row(i);
      if (row >= p.k || column.channel < 0) return nullptr;
      Pixel const o = output_pixel(pr, row);
      Array<int, 3> at{};
      bool in = true;
      TESSERA_UNROLL
      for (int dim = 0; dim < 3; ++dim) {
        at[dim] = input_coord(pr, dim, o.at[dim], column.at[dim]);
        in = in && at[dim] >= 0 && at[dim] < pr.input_extent(dim);
      }
      return in ? x + (((std::int64_t(o.n) * pr.d + at[0]) * pr.h + at[1]) * pr.w + at[2]) * pr.c : nullptr;
    });
  }
};

template <class GemmCfg, class Dir>
using Loader = std::conditional_t<std::is_same_v<Dir, Fprop>, FpropLoader<GemmCfg>,
                                  std::conditional_t<std::is_same_v<Dir, Dgrad>, DgradLoader<GemmCfg>, WgradLoader<GemmCfg>>>;

}  // namespace tessera::conv::sm80
