// Fprop: X through TMA im2col boxes (or, 1 x 1 at unit stride, as a matrix) times W.
// The Hopper convolution's Fprop loader (the family: conv/sm90/im2col_loader.hpp).
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/conv/sm90/im2col.hpp"

namespace tessera::conv::sm90 {

// Fprop: A = X im2col (BM pixels of BK channels of one tap), B = W (K-major).
template <class GemmCfg>
struct FpropLoader : detail::Base<GemmCfg, FpropLoader<GemmCfg>> {
  using Base = detail::Base<GemmCfg, FpropLoader>;
  using typename Base::Params, typename Base::Stage, typename Base::Tiled;
  using Base::BM, Base::BN, Base::BK, Base::ClusterM, Base::ClusterN;
  static_assert(GemmCfg::a_k_major && GemmCfg::b_k_major, "conv::sm90::FpropLoader: Fprop's GEMM is TN; use conv::Config's Gemm");

  template <class TX, class TW, class TY>
  static Status make(Problem const& p, TX const* x, TW const* w, TY const*, Params& out) {
    // (A 1 x 1 dense layer is a plain GEMM over the channels: its last k-tile may be partial, TMA
    // filling the rest with zeros.)
    if (p.c_per_group() % BK != 0 && !(p.groups == 1 && Base::plain(p)))
      return detail::fail("C / groups = " + detail::str(p.c_per_group()) + " is not a multiple of BlockTile K = " + detail::str(BK) +
                          " (a k-tile is one filter tap); pad the channels or use a Warps<M, N> Config (the sm80 kernel)");
    out.problem = p;
    out.rank = detail::im2col_rank(p);
    out.plain = Base::plain(p);
    if (out.plain) TESSERA_RETURN_IF_ERROR(Base::matrix_map(out.map_a, x, std::int64_t(p.n) * p.d * p.h * p.w, p.c, p.c_per_group(), p.groups, BK, BM / ClusterN));
    else TESSERA_RETURN_IF_ERROR(detail::im2col_map(out.map_a, x, detail::forward(p), out.rank, BM));
    std::int64_t const k = std::int64_t(p.t) * p.r * p.s * p.c_per_group();
    return arch::sm90::make_tensor_map_3d(out.map_b, w, std::uint64_t(k), std::uint64_t(p.k), std::uint64_t(k), 1, std::uint64_t(k) * p.k,
                                          std::uint32_t(BK), std::uint32_t(BN / ClusterM), arch::sm90::TmaSwizzle::k128B);
  }

  struct Loads {
    Params const& p;
    detail::Share<GemmCfg> share;
    TESSERA_DEVICE void operator()(char* stage, std::uint32_t full, int kt, gemm::sm90::WorkUnit const& u) const {
      Problem const& pr = p.problem;
      // The filters: the group's K / g rows from filter g K / g (u.batch is the group), columns kt BK ...
      Tiled::template load<true, BN, ClusterM, false>(Stage::b(stage), &p.map_b, kt * BK, u.batch * pr.k_per_group() + u.t.n * BN, 0, full,
                                                      share.rank_m, share.b_mask, 0);
      if (p.plain) {
        Tiled::template load<true, BM, ClusterN, false>(Stage::a(stage), &p.map_a, kt * BK, u.t.m * BM, u.batch, full, share.rank_n,
                                                        share.a_mask, 0);
        return;
      }
      KTile const t = k_tile(pr, BK, kt);
      Pixel const o = output_pixel(pr, std::int64_t(u.t.m) * BM);  // the unit's first output pixel
      Array<int, 3> at{}, off{};
      for (int dim = 0; dim < 3; ++dim) {
        at[dim] = input_coord(pr, dim, o.at[dim], 0);
        off[dim] = t.at[dim] * pr.dilation[dim];
      }
      share.template box<true>(kt, 0, p.rank, arch::smem_address(Stage::a(stage)), &p.map_a, u.batch * pr.c_per_group() + t.c0, at, o.n, off,
                               full);
    }
  };
};

}  // namespace tessera::conv::sm90
