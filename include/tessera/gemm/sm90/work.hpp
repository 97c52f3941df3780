// The persistent sm90 kernel's work decomposition, plain arithmetic so that the host tests it:
// cluster tiles of ClusterM x ClusterN output tiles in the grouped raster's order (gemm/raster.hpp),
// times batch entries, times K slices (split-K). Work item w is slice w % k_splits of cluster tile
// w / k_splits, so a tile's slices are neighbours and run at once. The grid's clusters take items
// first, first + clusters, ...; the blocks of a cluster take the same item, each the tile of its
// rank (rank_m, rank_n) in the cluster tile. Tiles past the tile grid (odd tile counts) are items
// too: their blocks compute zeros, store nothing, and load their part of the shared operand.
//
//   WorkGrid const g{tiles_m, tiles_n, batch_count, k_tiles, k_splits, k_tiles_per_split, 8, 2, 1};
//   for (int w = first; w < g.total(); w += clusters) { WorkUnit const u = g.unit(w, rank_m, rank_n); ... }
#pragma once

#include <cstdint>

#include "tessera/core/config.hpp"
#include "tessera/gemm/raster.hpp"

namespace tessera::gemm::sm90 {

// One work item of one block: k-tiles [kt0, kt1) (slice `slice`) of tile t of a batch entry.
struct WorkUnit {
  TileCoord t;
  int batch, slice, kt0, kt1;
  int tile_id;  // among all tiles (padded to whole clusters) of all batch entries: split-K's slots
};

// The automatic raster group (Arguments::raster_group = 0), in cluster tiles: the group of g
// cluster-tile rows that `clusters` clusters walk at once spans g * cluster_m * bm rows of D and
// about clusters / g * cluster_n * bn columns; g is picked to make the two equal, so that the
// tiles in flight read as few distinct rows of A and columns of B as they can. The H100, 132
// multiprocessors, 128 x 256 tiles: 16 (no cluster, 1 x 2), 8 (2 x 1). A fixed 8 made clusters
// of 1 x 2 read 2.7 times the DRAM bytes at 8192^3 and run 6-13% slower (docs/performance.md).
TESSERA_HD constexpr int auto_raster_group(int clusters, int bm, int bn, int cluster_m, int cluster_n) {
  std::int64_t const rows = std::int64_t(cluster_m) * bm, cols = std::int64_t(clusters) * cluster_n * bn;
  int best = 1;
  for (int g = 2; std::int64_t(g - 1) * (g - 1) * rows <= cols; ++g) {
    // g * g * rows against cols: the g whose square is nearest clusters * cluster_n * bn / (cluster_m * bm).
    std::int64_t const d = std::int64_t(g) * g * rows - cols, d_best = std::int64_t(best) * best * rows - cols;
    if ((d < 0 ? -d : d) < (d_best < 0 ? -d_best : d_best)) best = g;
  }
  return best;
}

struct WorkGrid {
  int tiles_m, tiles_n, batch_count;
  int k_tiles, k_splits, k_tiles_per_split;
  int raster_group;
  int cluster_m, cluster_n;

  TESSERA_HD constexpr int ctiles_m() const { return (tiles_m + cluster_m - 1) / cluster_m; }
  TESSERA_HD constexpr int ctiles_n() const { return (tiles_n + cluster_n - 1) / cluster_n; }
  // Work items in all: cluster tiles x batch entries x slices.
  TESSERA_HD constexpr int total() const { return ctiles_m() * ctiles_n() * batch_count * k_splits; }
  // Tiles padded to whole clusters, times batch entries: the range of tile_id.
  TESSERA_HD constexpr int padded_tiles() const {
    return ctiles_m() * cluster_m * ctiles_n() * cluster_n * batch_count;
  }

  TESSERA_HD constexpr WorkUnit unit(int w, int rank_m, int rank_n) const {
    int const tiles = ctiles_m() * ctiles_n();
    int const tile_work = w / k_splits, slice = w % k_splits;
    TileCoord const ct = raster(tile_work % tiles, ctiles_m(), ctiles_n(), raster_group);
    WorkUnit u{};
    u.t = TileCoord{ct.m * cluster_m + rank_m, ct.n * cluster_n + rank_n};
    u.batch = tile_work / tiles;
    u.slice = slice;
    u.kt0 = slice * k_tiles_per_split;
    u.kt1 = u.kt0 + k_tiles_per_split < k_tiles ? u.kt0 + k_tiles_per_split : k_tiles;
    u.tile_id = (u.batch * ctiles_m() * cluster_m + u.t.m) * (ctiles_n() * cluster_n) + u.t.n;
    return u;
  }
};

// One block's walk over the grid's work items: first, first + stride, ... (stride: the grid's
// clusters), each unit the tile of the block's rank (rank_m, rank_n) in its cluster's.
struct BlockWork {
  WorkGrid g;
  int total, stride, first, rank_m, rank_n;
  TESSERA_HD constexpr WorkUnit unit(int w) const { return g.unit(w, rank_m, rank_n); }
};

}  // namespace tessera::gemm::sm90
