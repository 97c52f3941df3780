// The sm90 GEMM's operand loader: A's BM x BK and B's BN x BK tiles of a k-tile, loaded with TMA
// into a stage (gemm/sm90/stage.hpp). The piece a convolution replaces with its im2col loader.
//
// A loader of the sm90 kernel provides
//   struct Params;                               // in the kernel's parameters (TMA maps by value)
//   template <class Args> static Status make(Args const&, Params&);   // host: maps, hints
//   static void prefetch(Params const&);         // device, one thread: the maps into the cache
//   template <class F> static void with_loads(Params const&, int rank_m, int rank_n, F&& f);
//       // device, the producer thread: f(loads), where loads(stage, full, kt, unit) issues the
//       // copies of k-tile kt of work unit `unit` into `stage`, completing on mbarrier `full`
//       // (whose transaction count the kernel set to StageLayout::bytes)
//
// Clusters: the ClusterN blocks of a row of tiles share A's tile and the ClusterM blocks of a
// column share B's; each block loads 1 / ClusterN of A's rows (1 / ClusterM of B's) and multicasts
// them to the blocks that share the tile.
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/arch/sm90/tensor_map.hpp"
#include "tessera/arch/sm90/tma.hpp"
#include "tessera/core/status.hpp"
#include "tessera/gemm/l2_hint.hpp"
#include "tessera/gemm/sm90/stage.hpp"
#include "tessera/gemm/sm90/work.hpp"

namespace tessera::gemm::sm90 {

template <class Cfg>
struct TiledLoader {
  using Stage = StageLayout<Cfg>;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  static constexpr int ClusterM = Cfg::cluster_m, ClusterN = Cfg::cluster_n;

  struct Params {
    arch::sm90::TmaDescriptor map_a, map_b;   // 3-D: (K, M or N, batch), boxes of BK x rows (K-major) or 64 x BK
    arch::sm90::L2Eviction evict_a, evict_b;  // the L2 priority of A's and B's loads (gemm::L2Hint)
  };

  // The maps of A and B (args: a, lda, batch_stride_a, b, ldb, batch_stride_b, m, n, k,
  // batch_count, l2_hint_a, l2_hint_b, as gemm::Arguments has them). 3-D maps (contiguous extent,
  // the other one, batch); with one batch entry the batch stride is unused but must be valid.
  // K-major boxes are BK x rows (a part of the tile's rows where a cluster shares the tile);
  // MN-major boxes are 64 x BK (one 128-byte swizzle span of MN; the producer loads rows / 64).
  template <class Args>
  static Status make(Args const& args, Params& out) {
    auto const map = [&](arch::sm90::TmaDescriptor& m, auto const* base, bool k_major, std::int64_t mn, std::int64_t ld,
                         std::int64_t batch_stride, int rows) {
      std::int64_t const inner = k_major ? args.k : mn, outer = k_major ? mn : args.k;
      std::int64_t const stride = args.batch_count > 1 ? batch_stride : ld * outer;
      return arch::sm90::make_tensor_map_3d(m, base, std::uint64_t(inner), std::uint64_t(outer), std::uint64_t(ld),
                                            std::uint64_t(args.batch_count), std::uint64_t(stride),
                                            std::uint32_t(k_major ? BK : 64), std::uint32_t(k_major ? rows : BK),
                                            arch::sm90::TmaSwizzle::k128B);
    };
    TESSERA_RETURN_IF_ERROR(map(out.map_a, args.a, Cfg::a_k_major, args.m, args.lda, args.batch_stride_a, BM / ClusterN));
    TESSERA_RETURN_IF_ERROR(map(out.map_b, args.b, Cfg::b_k_major, args.n, args.ldb, args.batch_stride_b, BN / ClusterM));
    // An operand read once (its partner dimension one tile) streams through L2 evict-first (gemm/l2_hint.hpp).
    auto const eviction = [&](L2Hint h, std::int64_t partner_tiles, std::int64_t batch_stride) {
      L2Hint const r = resolve_l2_hint(h, partner_tiles, args.batch_count, batch_stride);
      return r == L2Hint::kEvictFirst ? arch::sm90::L2Eviction::kFirst
             : r == L2Hint::kEvictLast ? arch::sm90::L2Eviction::kLast
                                       : arch::sm90::L2Eviction::kNormal;
    };
    out.evict_a = eviction(args.l2_hint_a, (std::int64_t(args.n) + BN - 1) / BN, args.batch_stride_a);
    out.evict_b = eviction(args.l2_hint_b, (std::int64_t(args.m) + BM - 1) / BM, args.batch_stride_b);
    return Status::success();
  }

  TESSERA_DEVICE static void prefetch(Params const& p) {
    arch::sm90::tma_prefetch_descriptor(&p.map_a);
    arch::sm90::tma_prefetch_descriptor(&p.map_b);
  }

  // The loads of one producer thread, with or without an L2 cache policy on A's and B's.
  template <bool HintA, bool HintB>
  struct Loads {
    Params const& p;
    std::uint64_t policy_a, policy_b;
    std::uint16_t a_mask, b_mask;  // the blocks sharing A's tile (this cluster row) and B's (column)
    int rank_m, rank_n;            // this block's tile in its cluster's

    TESSERA_DEVICE void operator()(char* stage, std::uint32_t full, int kt, WorkUnit const& u) const {
      load<Cfg::a_k_major, BM, ClusterN, HintA>(Stage::a(stage), &p.map_a, kt * BK, u.t.m * BM, u.batch, full, rank_n, a_mask, policy_a);
      load<Cfg::b_k_major, BN, ClusterM, HintB>(Stage::b(stage), &p.map_b, kt * BK, u.t.n * BN, u.batch, full, rank_m, b_mask, policy_b);
    }
  };

  // The multicast masks of the blocks sharing a block's A tile (the ClusterN blocks of its row of
  // the cluster tile, ranks rank_m + ClusterM j) and its B tile (the ClusterM of its column).
  TESSERA_HD static constexpr std::uint16_t a_sharers(int rank_m) {
    std::uint16_t mask = 0;
    for (int j = 0; j < ClusterN; ++j) mask |= std::uint16_t(1u << (rank_m + ClusterM * j));
    return mask;
  }
  TESSERA_HD static constexpr std::uint16_t b_sharers(int rank_n) {
    std::uint16_t mask = 0;
    for (int i = 0; i < ClusterM; ++i) mask |= std::uint16_t(1u << (ClusterM * rank_n + i));
    return mask;
  }

  // An operand of normal priority is loaded without a hint: on the H100, the hinted form with an
  // evict_normal policy ran decode shapes up to 60% slower than no hint, and a run-time choice per
  // copy 10% slower than none (M = 128: unhinted, 90.6 against 82.8 us).
  template <class F>
  TESSERA_DEVICE static void with_loads(Params const& p, int rank_m, int rank_n, F&& f) {
    std::uint16_t const a_mask = a_sharers(rank_m), b_mask = b_sharers(rank_n);
    bool const hint_a = p.evict_a != arch::sm90::L2Eviction::kNormal, hint_b = p.evict_b != arch::sm90::L2Eviction::kNormal;
    std::uint64_t const policy_a = hint_a ? arch::sm90::l2_policy(p.evict_a) : 0;
    std::uint64_t const policy_b = hint_b ? arch::sm90::l2_policy(p.evict_b) : 0;
    if (hint_a) {
      if (hint_b) f(Loads<true, true>{p, policy_a, policy_b, a_mask, b_mask, rank_m, rank_n});
      else f(Loads<true, false>{p, policy_a, policy_b, a_mask, b_mask, rank_m, rank_n});
    } else {
      if (hint_b) f(Loads<false, true>{p, policy_a, policy_b, a_mask, b_mask, rank_m, rank_n});
      else f(Loads<false, false>{p, policy_a, policy_b, a_mask, b_mask, rank_m, rank_n});
    }
  }

  // Part `part` of `Parts` of one operand's k-tile (with L2 cache policy `policy` if Hint),
  // multicast to the blocks in `mask` when shared: a K-major operand's part is a box of (BK,
  // Rows / Parts) rows of 128 bytes at (k0, its first row); an MN-major one is boxes of (64, BK)
  // at (its 64-row block, k0), each filling a block of 64 x 128 bytes.
  // (Public: a convolution's loader loads its filters, the GEMM's B, with it.)
  template <bool KMajor, int Rows, int Parts, bool Hint>
  TESSERA_DEVICE static void load(char* dst, arch::sm90::TmaDescriptor const* map, int k0, int mn0, int batch, std::uint32_t bar,
                                  int part, std::uint16_t mask, std::uint64_t policy) {
    constexpr int part_rows = Rows / Parts;
    auto const copy = [&](char* to, int c0, int c1) {
      std::uint32_t const at = arch::smem_address(to);
      if constexpr (Parts == 1) {
        if constexpr (Hint) arch::sm90::tma_load_3d(at, map, c0, c1, batch, bar, policy);
        else arch::sm90::tma_load_3d(at, map, c0, c1, batch, bar);
      } else {
        if constexpr (Hint) arch::sm90::tma_load_3d_multicast(at, map, c0, c1, batch, bar, mask, policy);
        else arch::sm90::tma_load_3d_multicast(at, map, c0, c1, batch, bar, mask);
      }
    };
    if constexpr (KMajor) {
      copy(dst + part * part_rows * 128, k0, mn0 + part * part_rows);
    } else {
      static_assert(part_rows % 64 == 0, "gemm::sm90: an MN-major operand is shared in whole 64-row blocks");
      int const j0 = part * (part_rows / 64);  // a fixed trip count: unrolled, no loop registers
      TESSERA_UNROLL
      for (int j = 0; j < part_rows / 64; ++j) copy(dst + (j0 + j) * 64 * 128, mn0 + 64 * (j0 + j), k0);
    }
  }
};

}  // namespace tessera::gemm::sm90
