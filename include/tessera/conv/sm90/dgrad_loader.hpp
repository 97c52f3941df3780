// Dgrad at unit stride: dY through the flipped filter's im2col boxes times W read per tap.
// The Hopper convolution's Dgrad loader (the family: conv/sm90/im2col_loader.hpp).
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/conv/sm90/im2col.hpp"

namespace tessera::conv::sm90 {

// Dgrad (unit stride): A = dY im2col through the flipped tap, B = W (MN-major: the tap's BK filters).
template <class GemmCfg>
struct DgradLoader : detail::Base<GemmCfg, DgradLoader<GemmCfg>> {
  using Base = detail::Base<GemmCfg, DgradLoader>;
  using typename Base::Params, typename Base::Stage, typename Base::Tiled;
  using Base::BM, Base::BN, Base::BK, Base::ClusterM, Base::ClusterN;
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
    if (out.plain) TESSERA_RETURN_IF_ERROR(Base::matrix_map(out.map_a, dy, std::int64_t(p.n) * p.d * p.h * p.w, p.k, p.k_per_group(), p.groups, BK, BM / ClusterN));
    else TESSERA_RETURN_IF_ERROR(detail::im2col_map(out.map_a, dy, backward(p), out.rank, BM));
    // W as (C / g, K, taps): a tap's filters are rows T R S C / g apart, its taps C / g apart.
    int const taps = p.t * p.r * p.s, cg = p.c_per_group();
    return arch::sm90::make_tensor_map_3d(out.map_b, w, std::uint64_t(cg), std::uint64_t(p.k), std::uint64_t(taps) * cg, std::uint64_t(taps),
                                          std::uint64_t(cg), 64, std::uint32_t(BK), arch::sm90::TmaSwizzle::k128B);
  }

  struct Loads {
    Params const& p;
    detail::Share<GemmCfg> share;
    TESSERA_DEVICE void operator()(char* stage, std::uint32_t full, int kt, gemm::sm90::WorkUnit const& u) const {
      Problem const& pr = p.problem;
      KTile const t = k_tile(pr, BK, kt, pr.k_per_group());  // (tap, first filter of the group's)
      int const kf = u.batch * pr.k_per_group() + t.c0;     // the group's filters
      int const tap = (t.at[0] * pr.r + t.at[1]) * pr.s + t.at[2];
      Tiled::template load<false, BN, ClusterM, false>(Stage::b(stage), &p.map_b, kf, u.t.n * BN, tap, full, share.rank_m, share.b_mask, 0);
      if (p.plain) {
        Tiled::template load<true, BM, ClusterN, false>(Stage::a(stage), &p.map_a, t.c0, u.t.m * BM, u.batch, full, share.rank_n,
                                                        share.a_mask, 0);
        return;
      }
      Pixel const i = input_pixel(pr, std::int64_t(u.t.m) * BM);  // the unit's first input pixel
      Array<int, 3> at{}, off{};
      for (int dim = 0; dim < 3; ++dim) {
        int const reach = pr.dilation[dim] * (pr.filter_extent(dim) - 1);
        at[dim] = i.at[dim] + pr.pad_before[dim] - reach;                          // - the flipped walk's padding
        off[dim] = (pr.filter_extent(dim) - 1 - t.at[dim]) * pr.dilation[dim];  // the flipped tap
      }
      share.template box<true>(kt, 0, p.rank, arch::smem_address(Stage::a(stage)), &p.map_a, kf, at, i.n, off, full);
    }
  };
};

}  // namespace tessera::conv::sm90
