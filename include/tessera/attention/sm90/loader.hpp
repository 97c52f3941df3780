// The Hopper attention kernel's loads: Q, K and V through 4-D TMA maps over (head dimension,
// sequence, head, batch) with the problem's strides (BSHD and BHSD alike), boxes of 64 head-dim
// columns (one 128-byte swizzle span; V's of Config::v_span) by the tile's rows. Positions past a sequence arrive as
// zeros, or (variable lengths: one map over all the packed tokens) as the next sequence's: masked
// or never stored by the kernel either way.
//
//   Loader<Cfg>::make(problem, q, k, v, params);          // host: the maps, or what is wrong
//   Loader<Cfg>::load_q(s, params, qs, full, b, h, q0);    // device, one thread: Q stage qs
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/arch/sm90/tensor_map.hpp"
#include "tessera/arch/sm90/tma.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/attention/sm90/storage.hpp"
#include "tessera/core/status.hpp"

namespace tessera::attention::sm90 {

template <class Cfg>
struct Loader {
  using E = typename Cfg::Element;
  using S = Storage<Cfg>;
  static constexpr int D = Cfg::D, Dv = Cfg::Dv, BQ = Cfg::BQ, BKV = Cfg::BKV;

  struct Params {
    arch::sm90::TmaDescriptor q, k, v, o;  // (o: where Config::staged_o, the store's)
  };

  static Status make(Problem const& p, E const* q, E const* k, E const* v, typename Cfg::Output* o, Params& out) {
    // Variable lengths: one batch entry of all the packed tokens.
    int const batch = p.variable() ? 1 : p.batch;
    auto const map = [&]<class T>(arch::sm90::TmaDescriptor& m, T const* base, Strides const& st, int dim, std::int64_t seqlen, int heads,
                                  int rows, int span_bytes = 128) {
      std::uint64_t const extent[4] = {std::uint64_t(dim), std::uint64_t(seqlen > 0 ? seqlen : 1), std::uint64_t(heads),
                                       std::uint64_t(batch)};
      // (A batch of one entry leaves its stride unused; it must still be a valid one.)
      std::uint64_t const stride[3] = {std::uint64_t(st.seq), std::uint64_t(st.head),
                                       std::uint64_t(batch > 1 ? st.batch : 16 / std::int64_t(sizeof(T)))};
      std::uint32_t const box[4] = {std::uint32_t(span_bytes / int(sizeof(T))), std::uint32_t(rows), 1, 1};
      return arch::sm90::make_tensor_map_4d(m, base, extent, stride, box,
                                            span_bytes == 128 ? arch::sm90::TmaSwizzle::k128B : arch::sm90::TmaSwizzle::k64B);
    };
    std::int64_t const q_rows = p.variable() ? p.total_q : p.seqlen_q, k_rows = p.variable() ? p.total_k : p.seqlen_k;
    TESSERA_RETURN_IF_ERROR(map(out.q, q, p.q, D, q_rows, p.heads, BQ));
    TESSERA_RETURN_IF_ERROR(map(out.k, k, p.k, D, k_rows, p.heads_kv, BKV));
    if constexpr (Cfg::staged_o) TESSERA_RETURN_IF_ERROR(map(out.o, static_cast<typename Cfg::Output const*>(o), p.o, Dv, q_rows, p.heads, 64));
    return map(out.v, v, p.v, Dv, k_rows, p.heads_kv, BKV, Cfg::v_span * int(sizeof(E)));
  }

  TESSERA_DEVICE static void prefetch(Params const& p) {
    arch::sm90::tma_prefetch_descriptor(&p.q);
    arch::sm90::tma_prefetch_descriptor(&p.k);
    arch::sm90::tma_prefetch_descriptor(&p.v);
  }

  // Queries q0 .. q0 + BQ - 1 of head h, batch entry b.
  TESSERA_DEVICE static void load_q(S& s, Params const& p, int qs, std::uint32_t full, int b, int h, int q0) {
    TESSERA_UNROLL
    for (int j = 0; j < Cfg::Dp / Cfg::span; ++j) arch::sm90::tma_load_4d(arch::smem_address(&s.q[qs][j][0]), &p.q, Cfg::span * j, q0, h, b, full);
  }
  // Keys k0 .. k0 + BKV - 1 of K/V head hk into ring stage `stage`.
  TESSERA_DEVICE static void load_k(S& s, Params const& p, int stage, std::uint32_t full, int b, int hk, int k0) {
    TESSERA_UNROLL
    for (int j = 0; j < Cfg::Dp / Cfg::span; ++j)
      arch::sm90::tma_load_4d(arch::smem_address(&s.k[stage][j][0]), &p.k, Cfg::span * j, k0, hk, b, full);
  }
  TESSERA_DEVICE static void load_v(S& s, Params const& p, int stage, std::uint32_t full, int b, int hk, int k0) {
    if constexpr (Cfg::fp8) {  // as stored, for the producer's transposition
      TESSERA_UNROLL
      for (int j = 0; j < Cfg::Dvp / 128; ++j) arch::sm90::tma_load_4d(arch::smem_address(&s.v.raw[stage][j][0]), &p.v, 128 * j, k0, hk, b, full);
    } else {
      TESSERA_UNROLL
      for (int j = 0; j < Cfg::Dvp / Cfg::v_span; ++j)
        arch::sm90::tma_load_4d(arch::smem_address(&s.v.v[stage][j * S::VTile::block_elements]), &p.v, Cfg::v_span * j, k0, hk, b, full);
    }
  }
};

}  // namespace tessera::attention::sm90
