// The grouped raster (gemm/raster.hpp): every linear index of a grid maps to a distinct tile inside
// it, consecutive indices walk down a column of at most `group` tile rows, and the last group takes
// the remaining rows.
#include <catch2/catch.hpp>

#include <vector>

#include "tessera/gemm/raster.hpp"

using tessera::gemm::raster;
using tessera::gemm::TileCoord;

TEST_CASE("the grouped raster visits every tile once, down columns of a group of rows", "[gemm][raster]") {
  struct Grid {
    int tiles_m, tiles_n, group;
  };
  for (Grid g : {Grid{32, 16, 8}, Grid{13, 7, 8}, Grid{1, 5, 8}, Grid{9, 1, 4}, Grid{64, 32, 8}, Grid{5, 3, 1}}) {
    INFO(g.tiles_m << " x " << g.tiles_n << " tiles, groups of " << g.group << " rows");
    std::vector<int> seen(std::size_t(g.tiles_m) * g.tiles_n, 0);
    for (int pid = 0; pid < g.tiles_m * g.tiles_n; ++pid) {
      TileCoord const t = raster(pid, g.tiles_m, g.tiles_n, g.group);
      REQUIRE((t.m >= 0 && t.m < g.tiles_m && t.n >= 0 && t.n < g.tiles_n));
      ++seen[std::size_t(t.m) * g.tiles_n + t.n];
      int const first_m = pid / (g.group * g.tiles_n) * g.group;
      REQUIRE(t.m >= first_m);
      REQUIRE(t.m < first_m + g.group);  // inside its group of rows
      if (pid > 0) {
        TileCoord const prev = raster(pid - 1, g.tiles_m, g.tiles_n, g.group);
        // The next tile is one row further down the same column, or the top of the group's next column.
        bool const down = t.n == prev.n && t.m == prev.m + 1;
        bool const next_column = t.n == prev.n + 1 && t.m == first_m;
        bool const next_group = t.n == 0 && t.m == first_m && prev.m < first_m;
        REQUIRE((down || next_column || next_group));
      }
    }
    for (int c : seen) REQUIRE(c == 1);
  }
  STATIC_REQUIRE(raster(9, 32, 16, 8).m == 1);  // constexpr: the second tile of the second column
  STATIC_REQUIRE(raster(9, 32, 16, 8).n == 1);
}
