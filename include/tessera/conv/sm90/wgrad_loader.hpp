// Wgrad: dY (MN-major) times X's im2col boxes, one per 64 columns.
// The Hopper convolution's Wgrad loader (the family: conv/sm90/im2col_loader.hpp).
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/conv/sm90/im2col.hpp"

namespace tessera::conv::sm90 {

// Wgrad: A = dY (MN-major: BK output pixels of the group's BM filters), B = X im2col (a box of BK
// pixels of 64 channels of one tap for each 64 columns).
template <class GemmCfg>
struct WgradLoader : detail::Base<GemmCfg, WgradLoader<GemmCfg>> {
  using Base = detail::Base<GemmCfg, WgradLoader>;
  using typename Base::Params, typename Base::Stage, typename Base::Tiled;
  using Base::BM, Base::BN, Base::BK, Base::ClusterM, Base::ClusterN;
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
    detail::Share<GemmCfg> share;
    TESSERA_DEVICE void operator()(char* stage, std::uint32_t full, int kt, gemm::sm90::WorkUnit const& u) const {
      Problem const& pr = p.problem;
      Tiled::template load<false, BM, ClusterN, false>(Stage::a(stage), &p.map_a, kt * BK, u.t.m * BM, u.batch, full, share.rank_n,
                                                       share.a_mask, 0);
      if (p.plain) {
        Tiled::template load<false, BN, ClusterM, false>(Stage::b(stage), &p.map_b, kt * BK, u.t.n * BN, u.batch, full, share.rank_m,
                                                         share.b_mask, 0);
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
        share.template box<false>(kt, j, p.rank, arch::smem_address(Stage::b(stage) + j * 64 * 128), &p.map_b, c, at, o.n, off, full);
      }
    }
  };
};

}  // namespace tessera::conv::sm90
