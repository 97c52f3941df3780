// The order in which a GEMM visits its output tiles: in column groups of `group` tile rows, so
// that the blocks running at once share rows of A and columns of B in L2.
//
//   TileCoord const t = raster(pid, tiles_m, tiles_n, 8);   // pid: the linear work index
#pragma once

#include "tessera/core/config.hpp"

namespace tessera::gemm {

struct TileCoord {
  int m, n;  // tile row and column
};

// Tile `pid` of a tiles_m x tiles_n grid: pids group * tiles_n apart start a new group of tile
// rows; inside a group, consecutive pids walk down a column of (at most) `group` tiles.
TESSERA_HD constexpr TileCoord raster(int pid, int tiles_m, int tiles_n, int group) {
  int const per_group = group * tiles_n;
  int const first_m = (pid / per_group) * group;
  int const rows = tiles_m - first_m < group ? tiles_m - first_m : group;
  return TileCoord{first_m + (pid % per_group) % rows, (pid % per_group) / rows};
}

}  // namespace tessera::gemm
