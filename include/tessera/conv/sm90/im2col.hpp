// What the Hopper convolution's loaders (conv/sm90/im2col_loader.hpp) share: the im2col map of
// an activation walked as a convolution (its rank, bounding box, element strides and the limits
// TMA puts on them, each refused with its fix), one im2col load, the plain-matrix map of a 1 x 1
// unit-stride layer, and the loaders' common Params, prefetch and with_loads.
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

namespace tessera::conv::sm90::detail {

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

// The im2col map of `walk` over tensor `base`, boxes of `pixels` pixels x 128 bytes of channels
// (64 of a 16-bit type, 128 of fp8).
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
                                            128 / std::uint32_t(sizeof(T)), std::uint32_t(pixels), element_strides,
                                            arch::sm90::TmaSwizzle::k128B);
}

// The forward walk of a problem over its input (Fprop's A, Wgrad's B).
inline Walk forward(Problem const& p) {
  return Walk{p.n, p.c, {p.d, p.h, p.w}, {p.t, p.r, p.s}, p.pad_before, p.pad_after, p.stride, p.dilation};
}

// One im2col load of `rank` into dst: the box whose first pixel reads tensor coordinates (c, at)
// through offsets `off` (per dimension 0 depth, 1 height, 2 width). Multicast: into the same
// place in every block of the cluster in `mask`, completing on each one's barrier at `full`.
template <bool Multicast = false>
TESSERA_DEVICE inline void im2col_load(int rank, std::uint32_t dst, arch::sm90::TmaDescriptor const* map, int c, Array<int, 3> const& at,
                                       int n, Array<int, 3> const& off, std::uint32_t full, std::uint16_t mask = 0) {
  auto const o = [&](int dim) { return std::uint16_t(off[dim]); };
  if constexpr (Multicast) {
    if (rank == 4) arch::sm90::tma_load_im2col_4d_multicast(dst, map, c, at[2], at[1], n, full, o(2), o(1), mask);
    else if (rank == 3) arch::sm90::tma_load_im2col_3d_multicast(dst, map, c, at[2], n, full, o(2), mask);
    else arch::sm90::tma_load_im2col_5d_multicast(dst, map, c, at[2], at[1], at[0], n, full, o(2), o(1), o(0), mask);
  } else {
    if (rank == 4) arch::sm90::tma_load_im2col_4d(dst, map, c, at[2], at[1], n, full, o(2), o(1));
    else if (rank == 3) arch::sm90::tma_load_im2col_3d(dst, map, c, at[2], n, full, o(2));
    else arch::sm90::tma_load_im2col_5d(dst, map, c, at[2], at[1], at[0], n, full, o(2), o(1), o(0));
  }
}

// A block's place in its cluster (gemm/sm90/tiled_loader.hpp): the ClusterN blocks of a row of
// tiles share A's tile, the ClusterM blocks of a column B's. A tiled operand is split into parts,
// each block loading its rank's part and multicasting it (Tiled::load); an im2col box, whose cost
// is mostly per box (docs/performance.md: about 0.7 us a box plus 7.4 ns a pixel, one SM's boxes
// one after another), is not split: the sharing blocks take turns by k-tile, one loading a whole
// box for all of them, so that each issues 1 / Cluster of the boxes.
template <class GemmCfg>
struct Share {
  static constexpr int ClusterM = GemmCfg::cluster_m, ClusterN = GemmCfg::cluster_n;
  std::uint16_t a_mask = 0, b_mask = 0;  // the blocks sharing A's tile (this row) and B's (column)
  int rank_m = 0, rank_n = 0;            // this block's tile in its cluster's

  TESSERA_DEVICE Share(int m, int n)
      : a_mask(gemm::sm90::TiledLoader<GemmCfg>::a_sharers(m)), b_mask(gemm::sm90::TiledLoader<GemmCfg>::b_sharers(n)), rank_m(m), rank_n(n) {}
  // Whether this block loads box `box` of k-tile kt of a shared operand (Sharers blocks take turns).
  template <int Sharers>
  TESSERA_DEVICE static bool mine(int kt, int box, int rank) {
    return Sharers == 1 || (kt + box) % Sharers == rank;
  }
  // One im2col box of A (shared along the row) or B (along the column) of k-tile kt.
  template <bool OperandA>
  TESSERA_DEVICE void box(int kt, int index, int map_rank, std::uint32_t dst, arch::sm90::TmaDescriptor const* map, int c,
                          Array<int, 3> const& at, int n, Array<int, 3> const& off, std::uint32_t full) const {
    constexpr int sharers = OperandA ? ClusterN : ClusterM;
    if constexpr (sharers == 1) {
      im2col_load(map_rank, dst, map, c, at, n, off, full);
    } else if (mine<sharers>(kt, index, OperandA ? rank_n : rank_m)) {
      im2col_load<true>(map_rank, dst, map, c, at, n, off, full, OperandA ? a_mask : b_mask);
    }
  }
};

// What the three loaders share; Derived::Loads issues a k-tile's copies.
template <class GemmCfg, class Derived>
struct Base {
  using Stage = gemm::sm90::StageLayout<GemmCfg>;
  using Tiled = gemm::sm90::TiledLoader<GemmCfg>;
  static constexpr int BM = GemmCfg::BM, BN = GemmCfg::BN, BK = GemmCfg::BK;
  static constexpr int ClusterM = GemmCfg::cluster_m, ClusterN = GemmCfg::cluster_n;
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
  static bool plain(Problem const& p) { return is_pointwise(p); }
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
  TESSERA_DEVICE static void with_loads(Params const& p, int rank_m, int rank_n, F&& f) {
    f(typename Derived::Loads{p, Share<GemmCfg>(rank_m, rank_n)});
  }
};

}  // namespace tessera::conv::sm90::detail
