// The sm90 GEMM tests' shared pieces: Config shorthands and the standard cases the kernel takes.
#pragma once

#include "gemm_check.hpp"

namespace tessera::test::sm90 {

template <class E, int BM, int BN, int WG, int S, class Epi = AllStages, class Schedule = gemm::Cooperative,
          class LA = RowMajor, class LB = ColumnMajor, class Cluster = gemm::ClusterShape<1, 1>>
using Sm90Cfg = gemm::Config<arch::Sm90, E, LA, E, LB, E, float, gemm::BlockTile<BM, BN, 64>,
                             gemm::Warpgroups<WG, Schedule, Cluster>, gemm::Stages<S>, Epi>;
// Cooperative with a cluster of CM x CN blocks.
template <class E, int BM, int BN, int S, int CM, int CN, class Epi = AllStages, class LA = RowMajor, class LB = ColumnMajor>
using ClusterCfg = Sm90Cfg<E, BM, BN, 2, S, Epi, gemm::Cooperative, LA, LB, gemm::ClusterShape<CM, CN>>;
template <class E, int BM, int BN, int S, class Epi = AllStages>
using PingPongCfg = Sm90Cfg<E, BM, BN, 2, S, Epi, gemm::PingPong>;

// The standard cases the sm90 kernel takes: 16-byte aligned operands (TMA); split-K included.
inline std::vector<GemmCase> sm90_cases() {
  std::vector<GemmCase> out;
  for (auto const& c : standard_cases())
    if (c.pad < 0 && c.misalign == 0) out.push_back(c);
  // D the kernel stores without TMA (rows not 16-byte aligned): element by element (odd ldd) and
  // in pairs (even ldd).
  out.push_back({61, 67, 71, 1, 1, -1, 0, gemm::StorageOrder::kRowMajor, 3});
  out.push_back({130, 90, 64, 2, 1, -1, 0, gemm::StorageOrder::kRowMajor, 2});
  // Split-K with a K residue in the last slice and D without TMA; decode shapes (automatic split)
  // whose slices hold a few rows of D; a batched split with more units than blocks.
  out.push_back({61, 67, 1000, 1, 3, -1, 0, gemm::StorageOrder::kRowMajor, 3});
  out.push_back({16, 1024, 4096, 1, 0});
  out.push_back({1, 520, 3000, 1, 0});
  out.push_back({300, 400, 777, 3, 5});
  // Other tile orders (Arguments::raster_group): one tile row per group, and groups of three that
  // leave a partial group at the grid's edge.
  out.push_back({700, 1300, 130, 1, 1, -1, 0, gemm::StorageOrder::kRowMajor, -2, false, 1});
  out.push_back({1000, 520, 200, 2, 1, -1, 0, gemm::StorageOrder::kRowMajor, -2, false, 3});
  // L2 priorities (Arguments::l2_hint_a / _b) set on both operands: the hinted TMA copies, multicast
  // ones in clusters. (The decode shapes above take evict-first on B by default.)
  out.push_back({127, 300, 520, 2, 1, -1, 0, gemm::StorageOrder::kRowMajor, -2, false, 0, gemm::L2Hint::kEvictFirst,
                 gemm::L2Hint::kEvictFirst});
  out.push_back({61, 67, 1000, 1, 3, -1, 0, gemm::StorageOrder::kRowMajor, -2, false, 0, gemm::L2Hint::kEvictLast,
                 gemm::L2Hint::kEvictFirst});
  out.push_back({200, 33, 300, 1, 1, -1, 0, gemm::StorageOrder::kRowMajor, -2, false, 0, gemm::L2Hint::kNormal,
                 gemm::L2Hint::kEvictLast});
  // More tiles than two per block of a persistent grid (ring and turn phases wrap many times),
  // one k-tile per tile, and batches spread over blocks.
  if (std::getenv("TESSERA_TEST_SMALL") == nullptr) {
    out.push_back({2304, 2376, 200});
    out.push_back({1100, 2900, 64});
    out.push_back({700, 1300, 130, 3});
  }
  return out;
}

// The standard cases with the Config's default epilogue.
template <class Cfg>
void shapes() {
  for (auto const& cs : sm90_cases()) GemmCheck<Cfg>::run(cs);
}

// The standard cases, then every stage of AllStages (the Config's epilogue) on two residue shapes.
template <class Cfg>
void all_shapes() {
  shapes<Cfg>();
  check_every_stage<Cfg>({127, 61, 129});
  check_every_stage<Cfg>({40, 72, 64, 2});
}
}  // namespace tessera::test::sm90
