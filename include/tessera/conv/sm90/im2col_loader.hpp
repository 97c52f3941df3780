// The Hopper convolution's operand loader (Fprop): k-tile kt of a work unit is BK channels c0 of
// one filter tap (conv::k_tile), and its A tile -- BM output pixels' input pixels through that tap
// -- is one TMA im2col load: a box of BM pixels of BK channels, from the input coordinate of the
// unit's first output pixel, through the tap's offsets, walking the convolution's bounding box
// (padding zero-filled by TMA, rows past the last image zero). Its B tile is the filters' k-tile,
// loaded as the GEMM's TiledLoader loads B. It plugs into the unchanged
// gemm::sm90::Kernel<GemmCfg, Im2colLoader<GemmCfg>> (the loader contract:
// gemm/sm90/tiled_loader.hpp); groups are the work grid's batch entries.
//
// Needs C / groups a multiple of BlockTile K (a k-tile is one tap) and BK x 2 bytes = 128 (one
// swizzle span: BK = 64 for 16-bit types), strides of at most 8 (TMA's element strides), padding
// within TMA's corner range; make() says which, with the fix.
// tessera-header: cuda-only
#pragma once

#include <cstdint>
#include <string>

#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/arch/sm90/tensor_map.hpp"
#include "tessera/arch/sm90/tma.hpp"
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/core/status.hpp"
#include "tessera/gemm/sm90/stage.hpp"
#include "tessera/gemm/sm90/tiled_loader.hpp"
#include "tessera/gemm/sm90/work.hpp"

namespace tessera::conv::sm90 {

template <class GemmCfg>
struct Im2colLoader {
  using Stage = gemm::sm90::StageLayout<GemmCfg>;
  using Tiled = gemm::sm90::TiledLoader<GemmCfg>;
  using EA = typename GemmCfg::ElementA;
  static constexpr int BM = GemmCfg::BM, BN = GemmCfg::BN, BK = GemmCfg::BK;
  static_assert(GemmCfg::a_k_major && GemmCfg::b_k_major, "conv::sm90::Im2colLoader: Fprop's GEMM is TN; use conv::Config's Gemm");
  static_assert(GemmCfg::cluster_m * GemmCfg::cluster_n == 1,
                "conv::sm90::Im2colLoader: clusters are not supported yet by the convolution; use ClusterShape<1, 1>");
  static_assert(BK * int(sizeof(EA)) == 128, "conv::sm90::Im2colLoader: a k-tile's channels must be one 128-byte swizzle span; use "
                                             "BlockTile K = 64 for 16-bit types");

  struct Params {
    arch::sm90::TmaDescriptor map_x;  // im2col: (C, W, H[, D], N) boxes of BM pixels x BK channels
    arch::sm90::TmaDescriptor map_w;  // tiled, as the GEMM's B: (T R S C / g, K, 1), boxes BK x BN
    Problem problem;
    int rank;  // of map_x: 3 (NWC), 4 (NHWC) or 5 (NDHWC)
  };

  // X: the input (N D H W C), W: the filters (K T R S C/g); BM pixels a box.
  template <class T>
  static Status make(Problem const& p, T const* x, T const* w, Params& out) {
    auto const fail = [](std::string m) { return Status::not_supported("conv::sm90: " + std::move(m)); };
    auto const s = [](std::int64_t v) { return std::to_string(v); };
    if (p.c_per_group() % BK != 0)
      return fail("C / groups = " + s(p.c_per_group()) + " is not a multiple of BlockTile K = " + s(BK) +
                  " (a k-tile is one filter tap); pad the channels or use the sm80 Config (Warps)");
    for (int dim = 0; dim < 3; ++dim)
      if (p.stride[dim] > 8) return fail("a stride of " + s(p.stride[dim]) + " is past TMA's 8; use the sm80 Config (Warps)");
    out.problem = p;
    bool const three_d = p.d > 1 || p.t > 1 || p.pad_before[0] > 0 || p.pad_after[0] > 0;
    bool const one_d = !three_d && p.h == 1 && p.r == 1 && p.pad_before[1] == 0 && p.pad_after[1] == 0;
    out.rank = three_d ? 5 : one_d ? 3 : 4;
    // Dimensions innermost first: C, W, H, D, N (the unused ones left out).
    std::uint64_t dims[5] = {}, strides[4] = {};
    std::uint32_t element_strides[5] = {};
    int lower[3] = {}, upper[3] = {};
    int const spatial = out.rank - 2;
    dims[0] = std::uint64_t(p.c);
    element_strides[0] = 1;
    std::uint64_t pitch = std::uint64_t(p.c) * sizeof(T);
    for (int i = 0; i < spatial; ++i) {
      int const dim = 2 - i;  // W, then H, then D
      dims[i + 1] = std::uint64_t(p.input_extent(dim));
      strides[i] = pitch;
      pitch *= dims[i + 1];
      element_strides[i + 1] = std::uint32_t(p.stride[dim]);
      lower[i] = -p.pad_before[dim];
      upper[i] = p.pad_after[dim] - p.dilation[dim] * (p.filter_extent(dim) - 1);
    }
    dims[spatial + 1] = std::uint64_t(p.n);
    strides[spatial] = pitch;
    element_strides[spatial + 1] = 1;
    TESSERA_RETURN_IF_ERROR(arch::sm90::make_tensor_map_im2col(out.map_x, arch::sm90::tma_data_type<T>(), int(sizeof(T)), x, out.rank,
                                                               dims, strides, lower, upper, BK, BM, element_strides,
                                                               arch::sm90::TmaSwizzle::k128B));
    std::int64_t const k = std::int64_t(p.t) * p.r * p.s * p.c_per_group();
    return arch::sm90::make_tensor_map_3d(out.map_w, w, std::uint64_t(k), std::uint64_t(p.k), std::uint64_t(k), 1, std::uint64_t(k) * p.k,
                                          std::uint32_t(BK), std::uint32_t(BN), arch::sm90::TmaSwizzle::k128B);
  }

  TESSERA_DEVICE static void prefetch(Params const& p) {
    arch::sm90::tma_prefetch_descriptor(&p.map_x);
    arch::sm90::tma_prefetch_descriptor(&p.map_w);
  }

  struct Loads {
    Params const& p;
    TESSERA_DEVICE void operator()(char* stage, std::uint32_t full, int kt, gemm::sm90::WorkUnit const& u) const {
      Problem const& pr = p.problem;
      KTile const t = k_tile(pr, BK, kt);
      // The unit's first output pixel, as the input coordinate its (0, 0, 0) tap reads.
      Pixel const o = output_pixel(pr, std::int64_t(u.t.m) * BM);
      int const c = u.batch * pr.c_per_group() + t.c0;  // the group's channels
      std::uint32_t const dst = arch::smem_address(Stage::a(stage));
      auto const at = [&](int dim) { return input_coord(pr, dim, o.at[dim], 0); };
      auto const off = [&](int dim) { return std::uint16_t(t.at[dim] * pr.dilation[dim]); };
      if (p.rank == 4) arch::sm90::tma_load_im2col_4d(dst, &p.map_x, c, at(2), at(1), o.n, full, off(2), off(1));
      else if (p.rank == 3) arch::sm90::tma_load_im2col_3d(dst, &p.map_x, c, at(2), o.n, full, off(2));
      else arch::sm90::tma_load_im2col_5d(dst, &p.map_x, c, at(2), at(1), at(0), o.n, full, off(2), off(1), off(0));
      // The filters: the group's K / g rows from filter g K / g (u.batch is the group), columns kt BK ...
      Tiled::template load<true, BN, 1, false>(Stage::b(stage), &p.map_w, kt * BK, u.batch * pr.k_per_group() + u.t.n * BN, 0, full, 0, 0, 0);
    }
  };

  template <class F>
  TESSERA_DEVICE static void with_loads(Params const& p, int, int, F&& f) {
    f(Loads{p});
  }
};

}  // namespace tessera::conv::sm90
