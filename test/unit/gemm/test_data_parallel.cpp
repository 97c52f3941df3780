// gemm::work_item (gemm/data_parallel.hpp): the blocks of a data-parallel grid (tiles x batch
// entries x K slices) take every (tile, batch entry, slice) exactly once, tiles in the raster's
// order within each batch entry and slice, for grids with partial raster groups.
#include <catch2/catch.hpp>

#include <set>
#include <tuple>

#include "tessera/gemm/data_parallel.hpp"

namespace {
struct Grid {  // the fields work_item reads
  int tiles_m, tiles_n, raster_group, batch_count;
};
}  // namespace

TEST_CASE("data-parallel blocks cover every tile, batch entry and K slice once", "[gemm][data_parallel]") {
  for (Grid g : {Grid{1, 1, 8, 1}, Grid{7, 5, 8, 3}, Grid{13, 4, 3, 2}, Grid{5, 11, 1, 1}})
    for (int splits : {1, 2, 5}) {
      INFO("tiles " << g.tiles_m << " x " << g.tiles_n << ", group " << g.raster_group << ", batch " << g.batch_count
                    << ", splits " << splits);
      int const tiles = g.tiles_m * g.tiles_n, total = tiles * g.batch_count * splits;
      std::set<std::tuple<int, int, int, int>> seen;
      for (int i = 0; i < total; ++i) {
        tessera::gemm::WorkItem const w = tessera::gemm::work_item(g, i);
        REQUIRE(w.tm >= 0);
        REQUIRE(w.tm < g.tiles_m);
        REQUIRE(w.tn >= 0);
        REQUIRE(w.tn < g.tiles_n);
        // Blocks run batch entry by batch entry, slice by slice.
        CHECK(w.batch == i / tiles % g.batch_count);
        CHECK(w.split == i / tiles / g.batch_count);
        // Within one, the tile is the raster's.
        tessera::gemm::TileCoord const t = tessera::gemm::raster(i % tiles, g.tiles_m, g.tiles_n, g.raster_group);
        CHECK((w.tm == t.m && w.tn == t.n));
        seen.insert({w.tm, w.tn, w.batch, w.split});
      }
      CHECK(int(seen.size()) == total);
    }
}

TEST_CASE("split_k_rule: a given split trimmed to no empty slice, or 0 filling the multiprocessors", "[gemm]") {
  using tessera::gemm::split_k_rule;
  CHECK(split_k_rule(4, 132, 10, 9, true, 16) == 3);   // 9 k-tiles in slices of 3: three, not four
  CHECK(split_k_rule(4, 132, 10, 10, true, 16) == 4);  // 10 in slices of 3: four, the last of 1
  CHECK(split_k_rule(1, 132, 1, 100, true, 16) == 1);
  CHECK(split_k_rule(-2, 132, 1, 100, true, 16) == -2);  // refused by the caller
  // Automatic: a persistent kernel within one wave (132 / 5 = 26), capped; a data-parallel one
  // rounds up; never slices of fewer than 4 k-tiles.
  CHECK(split_k_rule(0, 132, 5, 1568, true, 32) == 26);
  CHECK(split_k_rule(0, 132, 5, 1568, true, 16) == 16);
  CHECK(split_k_rule(0, 132, 5, 1568, false, 32) == 27);
  CHECK(split_k_rule(0, 132, 5, 20, true, 32) == 5);
  CHECK(split_k_rule(0, 132, 200, 1568, true, 32) == 1);  // the tiles fill the GPU already
}
