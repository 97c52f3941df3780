// The Hopper convolution's operand loaders, one per direction. Each plugs into the unchanged
// gemm::sm90::Kernel<GemmCfg, Loader> (the loader contract: gemm/sm90/tiled_loader.hpp) with the
// GEMM of conv/implicit_gemm.hpp; groups are the work grid's batch entries. The gathered operand
// is TMA im2col loads: a box of pixels (walking the convolution's bounding box W first, then H,
// D and N, padding and pixels past the last image zero-filled by TMA) of 64 channels (one 128-byte
// swizzle span), read through a filter tap's offsets. The other operand is the GEMM's tiled load.
//
//   Fprop  A = X im2col: BM output pixels' input pixels through the k-tile's tap (K-major)
//          B = W tiled, K-major: the k-tile's BK columns (T R S C / g) of BN filters
//   Dgrad  A = dY im2col: BM input pixels' output pixels through the k-tile's tap, run backwards as
//          a unit-stride Fprop over dY with the flipped filter (each dimension padded by
//          dilation (filter - 1) - padding) (K-major)
//          B = W tiled, MN-major: BK filters of the k-tile's tap, BN channels each
//   Wgrad  A = dY tiled, MN-major: BK output pixels of BM filters
//          B = X im2col: BK output pixels' input pixels, a box of 64 channels of one tap for each
//          64 columns (tap, channel) of the tile (MN-major)
//
// Needs 16-bit types with BlockTile K = 64; Fprop C / g, Dgrad K / g multiples of BK (a k-tile is
// one tap) and Wgrad C / g a multiple of 64 (a box is one tap); strides of at most 8 (TMA's
// traversal strides) and Dgrad unit strides; padding and dilated filters within TMA's corner and
// offset ranges. make() says which is wrong, with the fix.
// tessera-header: cuda-only
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/arch/sm90/tensor_map.hpp"
#include "tessera/arch/sm90/tma.hpp"
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/core/status.hpp"
#include "tessera/gemm/sm90/stage.hpp"
#include "tessera/gemm/sm90/tiled_loader.hpp"
#include "tessera/gemm/sm90/work.hpp"

namespace tessera::conv::sm90 {

namespace detail {

inline Status fail(std::string m) { return Status::not_supported("conv::sm90: " + std::move(m)); }
inline std::string str(std::int64_t v) { return std::to_string(v); }

// The im2col map's rank: 3 (NWC), 4 (NHWC) or 5 (NDHWC), the fewest that hold the problem.
inline int im2col_rank(Problem const& p) {
  bool const three_d = p.d > 1 || p.t > 1 || p.pad_before[0] > 0 || p.pad_after[0] > 0;
  bool const one_d = !three_d && p.h == 1 && p.r == 1 && p.pad_before[1] == 0 && p.pad_after[1] == 0;
  return three_d ? 5 : one_d ? 3 : 4;
}

// What an im2col map walks: an activation tensor of n images of `extent` pixels (per dimension:
// 0 depth, 1 height, 2 width) of `channels` channels, read as a forward convolution with the
// filter `filter`, padding before/after, stride and dilation per dimension.
struct Walk {
  int n, channels;
  Array<int, 3> extent, filter, pad_before, pad_after, stride, dilation;
};

// The im2col map of `walk` over tensor `base`, boxes of `pixels` pixels x 64 channels (128 bytes).
template <class T>
Status im2col_map(arch::sm90::TmaDescriptor& out, T const* base, Walk const& walk, int rank, int pixels) {
  int const spatial = rank - 2;
  int const offset_reach = spatial == 1 ? 1 << 16 : spatial == 2 ? 1 << 8 : 1 << 5;  // the im2col offsets' range
  std::uint64_t dims[5] = {}, strides[4] = {};
  std::uint32_t element_strides[5] = {};
  int lower[3] = {}, upper[3] = {};
  dims[0] = std::uint64_t(walk.channels);
  element_strides[0] = 1;
  std::uint64_t pitch = std::uint64_t(walk.channels) * sizeof(T);
  for (int i = 0; i < spatial; ++i) {
    int const dim = 2 - i;  // innermost first: W, then H, then D
    int const reach = walk.dilation[dim] * (walk.filter[dim] - 1);
    if (walk.stride[dim] > 8)
      return fail("a stride of " + str(walk.stride[dim]) + " is past TMA's 8; use a Warps<M, N> Config (the sm80 kernel)");
    if (reach >= offset_reach)
      return fail("the dilated filter spans " + str(reach + 1) + " pixels, past the " + str(offset_reach) +
                  " that TMA im2col offsets reach for this rank; use a Warps<M, N> Config (the sm80 kernel)");
    dims[i + 1] = std::uint64_t(walk.extent[dim]);
    strides[i] = pitch;
    pitch *= dims[i + 1];
    element_strides[i + 1] = std::uint32_t(walk.stride[dim]);
    lower[i] = -walk.pad_before[dim];
    upper[i] = walk.pad_after[dim] - reach;
  }
  dims[spatial + 1] = std::uint64_t(walk.n);
  strides[spatial] = pitch;
  element_strides[spatial + 1] = 1;
  return arch::sm90::make_tensor_map_im2col(out, arch::sm90::tma_data_type<T>(), int(sizeof(T)), base, rank, dims, strides, lower, upper,
                                            64, std::uint32_t(pixels), element_strides, arch::sm90::TmaSwizzle::k128B);
}

// The forward walk of a problem over its input (Fprop's A, Wgrad's B).
inline Walk forward(Problem const& p) {
  return Walk{p.n, p.c, {p.d, p.h, p.w}, {p.t, p.r, p.s}, p.pad_before, p.pad_after, p.stride, p.dilation};
}

// One im2col load of `rank` into dst: the box whose first pixel reads tensor coordinates (c, at)
// through offsets `off` (per dimension 0 depth, 1 height, 2 width).
TESSERA_DEVICE inline void im2col_load(int rank, std::uint32_t dst, arch::sm90::TmaDescriptor const* map, int c, Array<int, 3> const& at,
                                       int n, Array<int, 3> const& off, std::uint32_t full) {
  auto const o = [&](int dim) { return std::uint16_t(off[dim]); };
  if (rank == 4) arch::sm90::tma_load_im2col_4d(dst, map, c, at[2], at[1], n, full, o(2), o(1));
  else if (rank == 3) arch::sm90::tma_load_im2col_3d(dst, map, c, at[2], n, full, o(2));
  else arch::sm90::tma_load_im2col_5d(dst, map, c, at[2], at[1], at[0], n, full, o(2), o(1), o(0));
}

// What the three loaders share; Derived::Loads issues a k-tile's copies.
template <class GemmCfg, class Derived>
struct Base {
  using Stage = gemm::sm90::StageLayout<GemmCfg>;
  using Tiled = gemm::sm90::TiledLoader<GemmCfg>;
  static constexpr int BM = GemmCfg::BM, BN = GemmCfg::BN, BK = GemmCfg::BK;
  static_assert(GemmCfg::cluster_m * GemmCfg::cluster_n == 1,
                "conv::sm90: clusters are not supported yet by the convolution; use ClusterShape<1, 1>");
  static_assert(BK * int(sizeof(typename GemmCfg::ElementA)) == 128 && BK * int(sizeof(typename GemmCfg::ElementB)) == 128,
                "conv::sm90: a k-tile's channels must be one 128-byte swizzle span; use 16-bit types with BlockTile K = 64");

  struct Params {
    arch::sm90::TmaDescriptor map_a, map_b;
    Problem problem;
    int rank;    // of the im2col map: 3 (NWC), 4 (NHWC) or 5 (NDHWC)
    bool plain;  // a 1 x 1 filter at unit stride without padding: the activation is a plain
                 // matrix (pixels x channels), read by tiled loads (docs/performance.md: about
                 // 1.5 times faster than im2col boxes on the H100's 1 x 1 layers)
  };

  // Whether the gathered operand is a plain matrix: every pixel reads its own input pixel.
  static bool plain(Problem const& p) {
    bool unit = p.t * p.r * p.s == 1;
    for (int dim = 0; dim < 3; ++dim) unit = unit && p.stride[dim] == 1 && p.pad_before[dim] == 0 && p.pad_after[dim] == 0;
    return unit;
  }
  // The tiled map of an activation tensor as a matrix: `pixels` rows of `channels` channels, the
  // group's `per_group` of them from channel g per_group; boxes of `box_inner` x `box_outer`.
  template <class T>
  static Status matrix_map(arch::sm90::TmaDescriptor& out, T const* base, std::int64_t pixels, int channels, int per_group, int groups,
                           int box_inner, int box_outer) {
    return arch::sm90::make_tensor_map_3d(out, base, std::uint64_t(per_group), std::uint64_t(pixels), std::uint64_t(channels),
                                          std::uint64_t(groups), std::uint64_t(groups > 1 ? per_group : pixels * channels),
                                          std::uint32_t(box_inner), std::uint32_t(box_outer), arch::sm90::TmaSwizzle::k128B);
  }

  TESSERA_DEVICE static void prefetch(Params const& p) {
    arch::sm90::tma_prefetch_descriptor(&p.map_a);
    arch::sm90::tma_prefetch_descriptor(&p.map_b);
  }

  template <class F>
  TESSERA_DEVICE static void with_loads(Params const& p, int, int, F&& f) {
    f(typename Derived::Loads{p});
  }
};

}  // namespace detail

// Fprop: A = X im2col (BM pixels of BK channels of one tap), B = W (K-major).
template <class GemmCfg>
struct FpropLoader : detail::Base<GemmCfg, FpropLoader<GemmCfg>> {
  using Base = detail::Base<GemmCfg, FpropLoader>;
  using typename Base::Params, typename Base::Stage, typename Base::Tiled;
  using Base::BM, Base::BN, Base::BK;
  static_assert(GemmCfg::a_k_major && GemmCfg::b_k_major, "conv::sm90::FpropLoader: Fprop's GEMM is TN; use conv::Config's Gemm");

  template <class TX, class TW, class TY>
  static Status make(Problem const& p, TX const* x, TW const* w, TY const*, Params& out) {
    if (p.c_per_group() % BK != 0)
      return detail::fail("C / groups = " + detail::str(p.c_per_group()) + " is not a multiple of BlockTile K = " + detail::str(BK) +
                          " (a k-tile is one filter tap); pad the channels or use a Warps<M, N> Config (the sm80 kernel)");
    out.problem = p;
    out.rank = detail::im2col_rank(p);
    out.plain = Base::plain(p);
    if (out.plain) TESSERA_RETURN_IF_ERROR(Base::matrix_map(out.map_a, x, std::int64_t(p.n) * p.d * p.h * p.w, p.c, p.c_per_group(), p.groups, BK, BM));
    else TESSERA_RETURN_IF_ERROR(detail::im2col_map(out.map_a, x, detail::forward(p), out.rank, BM));
    std::int64_t const k = std::int64_t(p.t) * p.r * p.s * p.c_per_group();
    return arch::sm90::make_tensor_map_3d(out.map_b, w, std::uint64_t(k), std::uint64_t(p.k), std::uint64_t(k), 1, std::uint64_t(k) * p.k,
                                          std::uint32_t(BK), std::uint32_t(BN), arch::sm90::TmaSwizzle::k128B);
  }

  struct Loads {
    Params const& p;
    TESSERA_DEVICE void operator()(char* stage, std::uint32_t full, int kt, gemm::sm90::WorkUnit const& u) const {
      Problem const& pr = p.problem;
      if (p.plain) {
        Tiled::template load<true, BM, 1, false>(Stage::a(stage), &p.map_a, kt * BK, u.t.m * BM, u.batch, full, 0, 0, 0);
        Tiled::template load<true, BN, 1, false>(Stage::b(stage), &p.map_b, kt * BK, u.batch * pr.k_per_group() + u.t.n * BN, 0, full, 0, 0, 0);
        return;
      }
      KTile const t = k_tile(pr, BK, kt);
      Pixel const o = output_pixel(pr, std::int64_t(u.t.m) * BM);  // the unit's first output pixel
      Array<int, 3> at{}, off{};
      for (int dim = 0; dim < 3; ++dim) {
        at[dim] = input_coord(pr, dim, o.at[dim], 0);
        off[dim] = t.at[dim] * pr.dilation[dim];
      }
      detail::im2col_load(p.rank, arch::smem_address(Stage::a(stage)), &p.map_a, u.batch * pr.c_per_group() + t.c0, at, o.n, off, full);
      // The filters: the group's K / g rows from filter g K / g (u.batch is the group), columns kt BK ...
      Tiled::template load<true, BN, 1, false>(Stage::b(stage), &p.map_b, kt * BK, u.batch * pr.k_per_group() + u.t.n * BN, 0, full, 0, 0, 0);
    }
  };
};

// Dgrad (unit stride): A = dY im2col through the flipped tap, B = W (MN-major: the tap's BK filters).
template <class GemmCfg>
struct DgradLoader : detail::Base<GemmCfg, DgradLoader<GemmCfg>> {
  using Base = detail::Base<GemmCfg, DgradLoader>;
  using typename Base::Params, typename Base::Stage, typename Base::Tiled;
  using Base::BM, Base::BN, Base::BK;
  static_assert(GemmCfg::a_k_major && !GemmCfg::b_k_major, "conv::sm90::DgradLoader: Dgrad's GEMM reads B N-major; use conv::Config's Gemm");

  // dY walked as the input of a unit-stride convolution with the flipped filter whose output is X's
  // extent: padding dilation (filter - 1) - padding (negative where the padding is wider than the
  // dilated filter: TMA's corners take that).
  static detail::Walk backward(Problem const& p) {
    detail::Walk w{p.n, p.k, {p.z(), p.p(), p.q()}, {p.t, p.r, p.s}, {}, {}, {1, 1, 1}, p.dilation};
    for (int dim = 0; dim < 3; ++dim) {
      int const reach = p.dilation[dim] * (p.filter_extent(dim) - 1);
      w.pad_before[dim] = reach - p.pad_before[dim];
      w.pad_after[dim] = reach - p.pad_after[dim];
    }
    return w;
  }

  template <class TX, class TW, class TY>
  static Status make(Problem const& p, TX const*, TW const* w, TY const* dy, Params& out) {
    if (p.k_per_group() % BK != 0)
      return detail::fail("K / groups = " + detail::str(p.k_per_group()) + " is not a multiple of BlockTile K = " + detail::str(BK) +
                          " (a k-tile of Dgrad is one filter tap); pad the filters or use a Warps<M, N> Config (the sm80 kernel)");
    for (int dim = 0; dim < 3; ++dim)
      if (p.stride[dim] != 1)
        return detail::fail("Dgrad with a stride of " + detail::str(p.stride[dim]) +
                            " is not on the Hopper kernel yet; use a Warps<M, N> Config (the sm80 kernel computes strided Dgrad)");
    out.problem = p;
    out.rank = detail::im2col_rank(p);
    out.plain = Base::plain(p);
    if (out.plain) TESSERA_RETURN_IF_ERROR(Base::matrix_map(out.map_a, dy, std::int64_t(p.n) * p.d * p.h * p.w, p.k, p.k_per_group(), p.groups, BK, BM));
    else TESSERA_RETURN_IF_ERROR(detail::im2col_map(out.map_a, dy, backward(p), out.rank, BM));
    // W as (C / g, K, taps): a tap's filters are rows T R S C / g apart, its taps C / g apart.
    int const taps = p.t * p.r * p.s, cg = p.c_per_group();
    return arch::sm90::make_tensor_map_3d(out.map_b, w, std::uint64_t(cg), std::uint64_t(p.k), std::uint64_t(taps) * cg, std::uint64_t(taps),
                                          std::uint64_t(cg), 64, std::uint32_t(BK), arch::sm90::TmaSwizzle::k128B);
  }

  struct Loads {
    Params const& p;
    TESSERA_DEVICE void operator()(char* stage, std::uint32_t full, int kt, gemm::sm90::WorkUnit const& u) const {
      Problem const& pr = p.problem;
      KTile const t = k_tile(pr, BK, kt, pr.k_per_group());  // (tap, first filter of the group's)
      if (p.plain) {
        Tiled::template load<true, BM, 1, false>(Stage::a(stage), &p.map_a, t.c0, u.t.m * BM, u.batch, full, 0, 0, 0);
        Tiled::template load<false, BN, 1, false>(Stage::b(stage), &p.map_b, u.batch * pr.k_per_group() + t.c0, u.t.n * BN, 0, full, 0, 0, 0);
        return;
      }
      Pixel const i = input_pixel(pr, std::int64_t(u.t.m) * BM);  // the unit's first input pixel
      Array<int, 3> at{}, off{};
      for (int dim = 0; dim < 3; ++dim) {
        int const reach = pr.dilation[dim] * (pr.filter_extent(dim) - 1);
        at[dim] = i.at[dim] + pr.pad_before[dim] - reach;                          // - the flipped walk's padding
        off[dim] = (pr.filter_extent(dim) - 1 - t.at[dim]) * pr.dilation[dim];  // the flipped tap
      }
      int const kf = u.batch * pr.k_per_group() + t.c0;  // the group's filters
      detail::im2col_load(p.rank, arch::smem_address(Stage::a(stage)), &p.map_a, kf, at, i.n, off, full);
      int const tap = (t.at[0] * pr.r + t.at[1]) * pr.s + t.at[2];
      Tiled::template load<false, BN, 1, false>(Stage::b(stage), &p.map_b, kf, u.t.n * BN, tap, full, 0, 0, 0);
    }
  };
};

// Wgrad: A = dY (MN-major: BK output pixels of the group's BM filters), B = X im2col (a box of BK
// pixels of 64 channels of one tap for each 64 columns).
template <class GemmCfg>
struct WgradLoader : detail::Base<GemmCfg, WgradLoader<GemmCfg>> {
  using Base = detail::Base<GemmCfg, WgradLoader>;
  using typename Base::Params, typename Base::Stage, typename Base::Tiled;
  using Base::BM, Base::BN, Base::BK;
  static_assert(!GemmCfg::a_k_major && !GemmCfg::b_k_major, "conv::sm90::WgradLoader: Wgrad's GEMM is NN; use conv::Config's Gemm");
  static_assert(BN % 64 == 0, "conv::sm90::WgradLoader: B's columns are boxes of 64 channels; use a BlockTile N that is a multiple of 64");
  // setmaxnreg for the producer thread (gemm/sm90/loader_traits.hpp): a box's tap and channel per
  // 64 columns; ptxas spilled at the GEMM's 40.
  static constexpr int producer_registers = 56;

  template <class TX, class TW, class TY>
  static Status make(Problem const& p, TX const* x, TW const*, TY const* dy, Params& out) {
    if (p.c_per_group() % 64 != 0)
      return detail::fail("C / groups = " + detail::str(p.c_per_group()) +
                          " is not a multiple of 64 (a box of Wgrad's B is 64 channels of one tap); use a Warps<M, N> Config (the sm80 kernel)");
    out.problem = p;
    out.rank = detail::im2col_rank(p);
    out.plain = Base::plain(p);
    if (out.plain) TESSERA_RETURN_IF_ERROR(Base::matrix_map(out.map_b, x, std::int64_t(p.n) * p.d * p.h * p.w, p.c, p.c_per_group(), p.groups, 64, BK));
    else TESSERA_RETURN_IF_ERROR(detail::im2col_map(out.map_b, x, detail::forward(p), out.rank, BK));
    // dY as (K / g, N Z P Q, groups): a group's filters, pixels K apart, groups K / g apart.
    std::int64_t const pixels = std::int64_t(p.n) * p.z() * p.p() * p.q();
    return arch::sm90::make_tensor_map_3d(out.map_a, dy, std::uint64_t(p.k_per_group()), std::uint64_t(pixels), std::uint64_t(p.k),
                                          std::uint64_t(p.groups), std::uint64_t(p.groups > 1 ? p.k_per_group() : pixels * p.k), 64,
                                          std::uint32_t(BK), arch::sm90::TmaSwizzle::k128B);
  }

  struct Loads {
    Params const& p;
    TESSERA_DEVICE void operator()(char* stage, std::uint32_t full, int kt, gemm::sm90::WorkUnit const& u) const {
      Problem const& pr = p.problem;
      Tiled::template load<false, BM, 1, false>(Stage::a(stage), &p.map_a, kt * BK, u.t.m * BM, u.batch, full, 0, 0, 0);
      if (p.plain) {
        Tiled::template load<false, BN, 1, false>(Stage::b(stage), &p.map_b, kt * BK, u.t.n * BN, u.batch, full, 0, 0, 0);
        return;
      }
      Pixel const o = output_pixel(pr, std::int64_t(kt) * BK);  // the k-tile's first output pixel
      Array<int, 3> at{};
      for (int dim = 0; dim < 3; ++dim) at[dim] = input_coord(pr, dim, o.at[dim], 0);
      int const cg = pr.c_per_group(), n = cg * pr.t * pr.r * pr.s;
      TESSERA_UNROLL
      for (int j = 0; j < BN / 64; ++j) {
        int const col = u.t.n * BN + 64 * j;
        // Past N: a box of channel C, which TMA fills with zeros (the stage's bytes still arrive).
        Tap const f = tap(pr, col < n ? col : 0, cg);
        Array<int, 3> off{};
        for (int dim = 0; dim < 3; ++dim) off[dim] = f.at[dim] * pr.dilation[dim];
        int const c = col < n ? u.batch * cg + f.channel : pr.c;
        detail::im2col_load(p.rank, arch::smem_address(Stage::b(stage) + j * 64 * 128), &p.map_b, c, at, o.n, off, full);
      }
    }
  };
};

template <class GemmCfg, class Dir>
using Loader = std::conditional_t<std::is_same_v<Dir, Fprop>, FpropLoader<GemmCfg>,
                                  std::conditional_t<std::is_same_v<Dir, Dgrad>, DgradLoader<GemmCfg>, WgradLoader<GemmCfg>>>;

}  // namespace tessera::conv::sm90
