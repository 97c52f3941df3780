// The sm90 kernel's work decomposition (gemm/sm90/work.hpp): over all work items and the ranks of
// a cluster, every tile of every batch entry gets each K slice exactly once; the slices of a tile
// partition its k-tiles and are neighbours in item order (so they run at once); the blocks of a
// cluster take neighbouring tiles of one cluster tile; tile_id is unique per (tile, batch entry)
// and inside padded_tiles(); tiles past the grid appear only to fill a cluster.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "tessera/gemm/sm90/work.hpp"

using tessera::gemm::sm90::WorkGrid;
using tessera::gemm::sm90::WorkUnit;

TEST_CASE("the sm90 work grid covers every tile and K slice once", "[gemm][sm90][work]") {
  auto slices_for = [](int k_tiles, int split) {  // as Gemm::split_k_for trims them: no empty slice
    int const per = (k_tiles + split - 1) / split;
    return std::pair{(k_tiles + per - 1) / per, per};
  };
  struct Case {
    int tiles_m, tiles_n, batch, k_tiles, split, cluster_m, cluster_n;
  };
  for (Case c : {Case{4, 3, 1, 16, 1, 1, 1}, Case{5, 7, 2, 10, 3, 1, 1}, Case{5, 3, 1, 9, 4, 2, 1}, Case{3, 5, 3, 7, 2, 1, 2},
                 Case{1, 1, 1, 64, 16, 2, 1}, Case{32, 16, 1, 64, 1, 2, 1}, Case{1, 8, 1, 64, 16, 1, 1}}) {
    auto const [splits, per] = slices_for(c.k_tiles, c.split);
    WorkGrid const g{c.tiles_m, c.tiles_n, c.batch, c.k_tiles, splits, per, 8, c.cluster_m, c.cluster_n};
    INFO(c.tiles_m << " x " << c.tiles_n << " tiles, " << c.batch << " batch entries, " << c.k_tiles << " k-tiles in " << splits
                   << " slices, cluster " << c.cluster_m << " x " << c.cluster_n);
    REQUIRE(g.total() == g.ctiles_m() * g.ctiles_n() * c.batch * splits);
    // (tile m, tile n, batch) -> k-tiles covered, in slice order; tile_id -> (m, n, batch).
    std::map<std::tuple<int, int, int>, std::vector<int>> covered;
    std::map<int, std::tuple<int, int, int>> ids;
    for (int w = 0; w < g.total(); ++w) {
      WorkUnit first{};
      for (int rn = 0; rn < c.cluster_n; ++rn)
        for (int rm = 0; rm < c.cluster_m; ++rm) {
          WorkUnit const u = g.unit(w, rm, rn);
          if (rm == 0 && rn == 0) first = u;
          // The cluster's blocks: one cluster tile, this block at its rank, the same slice.
          REQUIRE(u.t.m == first.t.m + rm);
          REQUIRE(u.t.n == first.t.n + rn);
          REQUIRE((u.slice == first.slice && u.batch == first.batch && u.kt0 == first.kt0 && u.kt1 == first.kt1));
          REQUIRE(u.slice == w % splits);  // a tile's slices are neighbouring items
          REQUIRE((u.kt0 < u.kt1 && u.kt1 <= c.k_tiles));
          REQUIRE((u.tile_id >= 0 && u.tile_id < g.padded_tiles()));
          auto const key = std::tuple{u.t.m, u.t.n, u.batch};
          auto const [it, fresh] = ids.emplace(u.tile_id, key);
          REQUIRE(it->second == key);  // one tile per id
          (void)fresh;
          if (u.t.m >= c.tiles_m || u.t.n >= c.tiles_n) {
            // Past the grid only to fill a cluster tile whose first block is inside it.
            REQUIRE((first.t.m < c.tiles_m && first.t.n < c.tiles_n));
            continue;
          }
          auto& ks = covered[key];
          for (int kt = u.kt0; kt < u.kt1; ++kt) ks.push_back(kt);
        }
    }
    REQUIRE(covered.size() == std::size_t(c.tiles_m) * c.tiles_n * c.batch);
    for (auto const& [key, ks] : covered) {
      REQUIRE(ks.size() == std::size_t(c.k_tiles));
      for (int kt = 0; kt < c.k_tiles; ++kt) REQUIRE(ks[std::size_t(kt)] == kt);  // each once, slices in order
    }
  }
}

// The automatic raster group: the tiles of `clusters` clusters in flight span about as many rows
// of D as columns.
TEST_CASE("the sm90 automatic raster group balances the rows and columns in flight", "[gemm][sm90][work]") {
  using tessera::gemm::sm90::auto_raster_group;
  // H100, 132 multiprocessors, 128 x 256 tiles: 16 x 128 rows against 132 / 16 x 256 columns.
  STATIC_REQUIRE(auto_raster_group(132, 128, 256, 1, 1) == 16);
  STATIC_REQUIRE(auto_raster_group(66, 128, 256, 2, 1) == 8);   // 8 x 256 rows, 66 / 8 x 256 columns
  STATIC_REQUIRE(auto_raster_group(66, 128, 256, 1, 2) == 16);  // 16 x 128 rows, 66 / 16 x 512 columns
  STATIC_REQUIRE(auto_raster_group(132, 128, 128, 1, 1) == 11);  // 11^2 = 121, 12^2 = 144 against 132
  STATIC_REQUIRE(auto_raster_group(132, 64, 256, 1, 1) == 23);   // 23^2 = 529 against 528
  STATIC_REQUIRE(auto_raster_group(1, 128, 256, 1, 1) == 1);
  STATIC_REQUIRE(auto_raster_group(0, 128, 256, 1, 1) == 1);  // no cluster resident: still a valid group
  for (int clusters = 1; clusters <= 264; ++clusters)
    for (int bm : {64, 128})
      for (int bn : {32, 64, 112, 128, 256}) {
        int const g = auto_raster_group(clusters, bm, bn, 1, 1);
        double const want = double(clusters) * bn / bm;  // g^2, ideally
        REQUIRE(g >= 1);
        // Nearest: neither neighbour's square is closer.
        REQUIRE(std::abs(double(g) * g - want) <= std::abs(double(g + 1) * (g + 1) - want));
        if (g > 1) REQUIRE(std::abs(double(g) * g - want) <= std::abs(double(g - 1) * (g - 1) - want));
      }
}
