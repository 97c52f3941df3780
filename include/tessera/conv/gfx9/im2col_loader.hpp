// The gfx9 convolution's operand loaders, one per direction. Each plugs into
// gemm::gfx9::Kernel<GemmCfg, Loader> (the loader contract: gemm/gfx9/tiled_loader.hpp) with the
// GEMM of conv/implicit_gemm.hpp, one operand gathered from an activation tensor and the other
// read as the gfx9 GEMM reads it:
//
//   Fprop  A = X gathered (rows: output pixels; a vector: 8 channels of one tap)    B = W (K-major)
//   Dgrad  A = dY gathered (rows: input pixels; a k-tile: BK filters of one tap)    B = W (N-major; the tap's rows)
//   Wgrad  A = dY (M-major)          B = X gathered (a vector: one output pixel's 8 channels of a (tap, channel) column)
//
// A gathered k-tile travels as the GEMM's does (global -> registers -> LDS, pipeline::LdsTileCopy:
// the same 16-byte vectors per thread, the same registers and LDS stores), but each vector is
// buffer-loaded from the tensor at the offset that conv/implicit_gemm.hpp's index math gives it
// (detail::gather_input / gather_output, x_offset / y_offset), or from kBufferOutOfRange, which
// reads zeros without a branch, where it reads padding, lies past the GEMM's extent, or (Dgrad
// with a stride) no output pixel reads the input pixel through the tap: the strided Dgrad
// computes those zero terms, as the sm80 path does (docs/conv.md).
//
// Needs 16-bit types, the channels of a group (C / g, K / g) multiples of 8 so that a vector never
// straddles two taps, for Dgrad, whose k-tile is one tap, K / g a multiple of BlockTile K, 16-byte
// aligned tensors, and each tensor within the 2 GiB a buffer resource reaches from its base
// (can_implement below; conv::Conv checks the rest). Host code runs the loaders too (buffer_load's
// host model): test/unit/conv/test_gfx9_im2col.cpp compares the LDS tiles with the index math.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/arch/gfx9/buffer.hpp"
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/conv/problem.hpp"
#include "tessera/core/status.hpp"
#include "tessera/gemm/data_parallel.hpp"
#include "tessera/gemm/gfx9/tiled_loader.hpp"
#include "tessera/pipeline/lds_double_buffer.hpp"

namespace tessera::conv::gfx9 {

// The kernel's parameters: the GEMM's (A, B, D the direction's tensors; group g is batch entry g,
// its part of each tensor batch_stride_* elements on) and the problem.
template <class GemmCfg>
struct ConvParams : gemm::DataParallelParams<GemmCfg> {
  Problem problem;
};

// The gfx9 limits of a problem: each tensor within a buffer resource's reach (2 GiB from its base).
inline Status can_implement(Problem const& p, int element_bytes) {
  std::int64_t const largest = std::max({p.input_elements(), p.filter_elements(), p.output_elements()}) * element_bytes;
  if (largest > std::int64_t(arch::gfx9::kBufferMaxBytes))
    return Status::not_supported("conv::Conv: a tensor of " + std::to_string(largest) + " bytes is past the 2 GiB that AMD buffer "
                                 "loads reach from one base; split the batch (N) into parts");
  return Status::success();
}

// A gathered k-tile of E, MN x BK, whose source is K-major (its vectors along K: Fprop's and
// Dgrad's A) or MN-major (along MN: Wgrad's B): the vectors, registers and LDS stores of the
// GEMM's copy, each vector buffer-loaded from the byte offset a loader finds for it.
template <class E, int MN, int BK, int Threads, bool KMajor>
struct Gather {
  using Copy = pipeline::LdsTileCopy<E, MN, BK, Threads, KMajor, true>;
  static_assert(sizeof(E) == 2, "conv::gfx9: the gathers take 16-bit types (half_t, bfloat16_t), 8 channels a vector");
  static constexpr int vectors = Copy::vectors;
  Copy copy;

  // Vector i of thread tid: its tile row and column (K-major: row mn, column k; MN-major: row k,
  // column mn).
  TESSERA_HD static constexpr typename Copy::Place place(int tid, int i) { return Copy::place(tid, i); }
  // Element `at` of the tensor as a byte offset, or kBufferOutOfRange (zeros) where !in.
  TESSERA_HD static constexpr std::uint32_t offset(bool in, std::int64_t at) {
    return in ? std::uint32_t(at * std::int64_t(sizeof(E))) : arch::gfx9::kBufferOutOfRange;
  }
  // Loads vector i from byte offset offset_of(i) of the tensor at `base` (`elements` long).
  template <class OffsetOf>
  TESSERA_HD void load(E const* base, std::int64_t elements, OffsetOf&& offset_of) {
    auto const res = arch::gfx9::make_buffer_resource(base, std::uint64_t(elements) * sizeof(E));
    TESSERA_UNROLL
    for (int i = 0; i < vectors; ++i) copy.regs[i] = arch::gfx9::buffer_load<pipeline::Vec16>(res, offset_of(i));
  }
  TESSERA_HD void store(E* lds, int tid) const { copy.store(lds, tid); }
};

// What the three loaders share: the parameters, the work item and its K slice.
template <class GemmCfg>
struct LoaderBase {
  using Params = ConvParams<GemmCfg>;
  using EA = typename GemmCfg::ElementA;
  using EB = typename GemmCfg::ElementB;
  static constexpr int BM = GemmCfg::BM, BN = GemmCfg::BN, BK = GemmCfg::BK, Threads = GemmCfg::threads;
  gemm::gfx9::KSlice slice;
  int k_tiles;
  gemm::WorkItem w;
  TESSERA_HD LoaderBase(Params const& p, gemm::WorkItem const& w_) : slice(gemm::gfx9::KSlice::of(p, w_, BK)), k_tiles(slice.tiles), w(w_) {}
};

// Fprop's and Dgrad's frame: A gathered by rows of pixels (PixelOf: a GEMM row's output or input
// pixel) in 16-byte vectors along K, B read as the GEMM reads it (K-major, or N-major).
template <class GemmCfg, bool BKMajor>
struct PixelRowsLoader : LoaderBase<GemmCfg> {
  using Base = LoaderBase<GemmCfg>;
  using typename Base::Params, typename Base::EA, typename Base::EB;
  using GatherA = Gather<EA, Base::BM, Base::BK, Base::Threads, true>;
  using CopyB = pipeline::LdsTileCopy<EB, Base::BN, Base::BK, Base::Threads, BKMajor, true>;
  Pixel rows[GatherA::vectors];  // each vector's pixel (n = -1 past M)
  GatherA gather;
  CopyB copy_b;

  template <class PixelOf>
  TESSERA_HD PixelRowsLoader(Params const& p, gemm::WorkItem const& w, int tid, PixelOf&& pixel_of) : Base(p, w) {
    TESSERA_UNROLL
    for (int i = 0; i < GatherA::vectors; ++i) {
      int const row = w.tm * Base::BM + GatherA::place(tid, i).row;
      rows[i] = pixel_of(p.problem, row);
      if (row >= p.m) rows[i].n = -1;
    }
  }
  TESSERA_HD void store(EA* lds_a, EB* lds_b, int tid) const {
    gather.store(lds_a, tid);
    copy_b.store(lds_b, tid);
  }
};

// Fprop: A = X through each vector's tap (rows: output pixels), B = W.
template <class GemmCfg>
struct FpropLoader : PixelRowsLoader<GemmCfg, true> {
  using Base = PixelRowsLoader<GemmCfg, true>;
  using typename Base::Params, typename Base::GatherA, typename Base::CopyB;
  static_assert(GemmCfg::a_k_major && GemmCfg::b_k_major, "conv::gfx9::FpropLoader: Fprop's GEMM is TN; use conv::Config's Gemm");
  std::int64_t extent_b;

  TESSERA_HD FpropLoader(Params const& p, gemm::WorkItem const& w, int tid)
      : Base(p, w, tid, [](Problem const& pr, int row) { return output_pixel(pr, row); }), extent_b(CopyB::extent(p.n, p.k, p.ldb)) {}

  // Vector i holds GEMM column k = k0 + its column: channels k mod (C / g) .. + 7 of tap
  // k / (C / g) (C / g a multiple of 8: a vector never straddles two taps). Past K: zeros.
  TESSERA_HD void load(Params const& p, int kt, int tid) {
    Problem const& pr = p.problem;
    int const k0 = this->slice.begin + kt * GemmCfg::BK;
    std::int64_t const group = this->w.batch * p.batch_stride_a;
    this->gather.load(p.a + group, pr.input_elements() - group, [&](int i) {
      int const k = k0 + GatherA::place(tid, i).col;
      Tap const f = tap(pr, k, pr.c_per_group());
      Pixel x{};
      bool const in = k < p.k && this->rows[i].n >= 0 && detail::gather_input(pr, this->rows[i], f, x);
      return GatherA::offset(in, detail::x_offset(pr, x, f.channel));
    });
    this->copy_b.load(p.b + this->w.batch * p.batch_stride_b, p.ldb, extent_b, this->w.tn * GemmCfg::BN, k0, p.n, this->slice.end, tid);
  }
};

// Dgrad: A = dY through the k-tile's tap, backwards (rows: input pixels; the output pixel that
// reads each); B = the tap's rows of W (BK filters, C / g channels each, T R S C / g apart).
template <class GemmCfg>
struct DgradLoader : PixelRowsLoader<GemmCfg, false> {
  using Base = PixelRowsLoader<GemmCfg, false>;
  using typename Base::Params, typename Base::GatherA, typename Base::CopyB;
  static_assert(GemmCfg::a_k_major && !GemmCfg::b_k_major, "conv::gfx9::DgradLoader: Dgrad's GEMM reads B N-major; use conv::Config's Gemm");

  TESSERA_HD DgradLoader(Params const& p, gemm::WorkItem const& w, int tid)
      : Base(p, w, tid, [](Problem const& pr, int row) { return input_pixel(pr, row); }) {}

  TESSERA_HD void load(Params const& p, int kt, int tid) {
    Problem const& pr = p.problem;
    int const cg = pr.c_per_group(), kg = pr.k_per_group();
    KTile const t = k_tile(pr, GemmCfg::BK, this->slice.begin / GemmCfg::BK + kt, kg);  // (tap, first filter of the group's)
    std::int64_t const group = this->w.batch * p.batch_stride_a;
    this->gather.load(p.a + group, pr.output_elements() - group, [&](int i) {
      Pixel o{};
      bool const read = this->rows[i].n >= 0 && detail::gather_output(pr, this->rows[i], Tap{t.at, 0}, o);
      return GatherA::offset(read, detail::y_offset(pr, o, t.c0 + GatherA::place(tid, i).col));
    });
    // B's rows: filters g K / g + c0 .. of tap t, each T R S C / g long. (The tap and c0 are
    // quotients, which the buffer resource's base needs in scalar registers.)
    int const tap_index = arch::gfx9::wave_uniform((t.at[0] * pr.r + t.at[1]) * pr.s + t.at[2]);
    std::int64_t const ld = std::int64_t(pr.t * pr.r * pr.s) * cg;
    this->copy_b.load(p.b + this->w.batch * p.batch_stride_b + std::int64_t(tap_index) * cg, ld, CopyB::extent(cg, kg, ld),
                      this->w.tn * GemmCfg::BN, arch::gfx9::wave_uniform(t.c0), p.n, kg, tid);
  }
};

// Wgrad: A = dY read as the GEMM reads an M-major A (its K filters contiguous per output pixel);
// B = X gathered: a k-tile is BK output pixels, and each vector's column a fixed (tap, channels).
template <class GemmCfg>
struct WgradLoader : LoaderBase<GemmCfg> {
  using Base = LoaderBase<GemmCfg>;
  using typename Base::Params, typename Base::EA, typename Base::EB;
  using Base::BK, Base::BM, Base::BN, Base::Threads;
  static_assert(!GemmCfg::a_k_major && !GemmCfg::b_k_major, "conv::gfx9::WgradLoader: Wgrad's GEMM is NN; use conv::Config's Gemm");
  using CopyA = pipeline::LdsTileCopy<EA, BM, BK, Threads, false, true>;
  using GatherB = Gather<EB, BN, BK, Threads, false>;
  Tap column[GatherB::vectors];  // each vector's column of B: its tap and first channel (-1 past N)
  std::int64_t extent_a;
  CopyA copy_a;
  GatherB gather;

  TESSERA_HD WgradLoader(Params const& p, gemm::WorkItem const& w, int tid) : Base(p, w), extent_a(CopyA::extent(p.m, p.k, p.lda)) {
    TESSERA_UNROLL
    for (int i = 0; i < GatherB::vectors; ++i) {
      int const col = w.tn * BN + GatherB::place(tid, i).col;
      column[i] = tap(p.problem, col, p.problem.c_per_group());
      if (col >= p.n) column[i].channel = -1;
    }
  }

  TESSERA_HD void load(Params const& p, int kt, int tid) {
    Problem const& pr = p.problem;
    int const k0 = this->slice.begin + kt * BK;
    copy_a.load(p.a + this->w.batch * p.batch_stride_a, p.lda, extent_a, this->w.tm * BM, k0, p.m, this->slice.end, tid);
    std::int64_t const group = this->w.batch * p.batch_stride_b;
    gather.load(p.b + group, pr.input_elements() - group, [&](int i) {
      int const pixel = k0 + GatherB::place(tid, i).row;  // the GEMM's k: an output pixel
      Pixel x{};
      bool const in = pixel < this->slice.end && column[i].channel >= 0 && detail::gather_input(pr, output_pixel(pr, pixel), column[i], x);
      return GatherB::offset(in, detail::x_offset(pr, x, column[i].channel));
    });
  }
  TESSERA_HD void store(EA* lds_a, EB* lds_b, int tid) const {
    copy_a.store(lds_a, tid);
    gather.store(lds_b, tid);
  }
};

template <class GemmCfg, class Dir>
using Loader = std::conditional_t<std::is_same_v<Dir, Fprop>, FpropLoader<GemmCfg>,
                                  std::conditional_t<std::is_same_v<Dir, Dgrad>, DgradLoader<GemmCfg>, WgradLoader<GemmCfg>>>;

}  // namespace tessera::conv::gfx9
