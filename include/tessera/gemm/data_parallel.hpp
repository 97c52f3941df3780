// What the data-parallel GEMM kernels (gemm/sm80, gemm/gfx9) share: their launch parameters, the
// work item of a block (an output tile of one batch entry and one K slice, in the raster's order),
// and the split-K reduction that sums the slices and runs the epilogue.
#pragma once

#include <cstdint>

#include "tessera/core/config.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/gemm/raster.hpp"

namespace tessera::gemm {

// The K split rule of the GEMM and the convolution (Gemm::split_k_for says why): `given` slices,
// or for 0 as many as fill `sms` multiprocessors with `out_tiles` output tiles (a persistent
// kernel: within one wave), each at least 4 of the `k_tiles` k-tiles long, at most `cap`; then
// trimmed so that no slice is empty. (A negative `given` is returned for the caller to refuse.)
constexpr int split_k_rule(int given, int sms, std::int64_t out_tiles, int k_tiles, bool persistent, int cap) {
  int split = given;
  if (split == 0) {
    std::int64_t const fill = persistent ? sms / out_tiles : (sms + out_tiles - 1) / out_tiles;
    std::int64_t const longest = k_tiles / 4;
    std::int64_t s = fill < longest ? fill : longest;
    s = s < cap ? s : cap;
    split = int(s > 1 ? s : 1);
  }
  if (split <= 1 || k_tiles < 1) return split < 1 ? split : 1;
  int const per = (k_tiles + split - 1) / split;
  return (k_tiles + per - 1) / per;
}

// Everything a launch needs, passed by value.
template <class Cfg>
struct DataParallelParams {
  int m, n, k;
  typename Cfg::ElementA const* a;
  std::int64_t lda, batch_stride_a;
  typename Cfg::ElementB const* b;
  std::int64_t ldb, batch_stride_b;
  typename Cfg::ElementD* d;
  std::int64_t d_row_stride, d_col_stride, batch_stride_d;
  int tiles_m, tiles_n;
  int raster_group;       // output tiles are visited in column groups of this many tile rows (L2 reuse)
  int batch_count;
  int k_splits;           // 1: no split-K
  int k_tiles_per_split;  // BK-tiles per split
  float* partials;        // split-K: k_splits x batch x m x n floats, row-major (see Gemm::run)
  typename Cfg::Epilogue epilogue;
  int batch_columns = 0;  // batch entries as column blocks for the chain (epilogue::Coord::in_batch)
};

// One block's work: an output tile (tm, tn) of batch entry `batch` and K slice `split`.
struct WorkItem {
  int tm, tn, batch, split;
};
// Block `index` of a grid of tiles x batch entries x K slices, tiles in the raster's order.
template <class Params>
TESSERA_HD WorkItem work_item(Params const& p, int index) {
  int const tiles = p.tiles_m * p.tiles_n;
  TileCoord const t = raster(index % tiles, p.tiles_m, p.tiles_n, p.raster_group);
  return {t.m, t.n, (index / tiles) % p.batch_count, index / tiles / p.batch_count};
}

#if defined(TESSERA_CUDA) || defined(TESSERA_HIP)
// Split-K: sums the slices of the workspace and applies the epilogue. One thread per element;
// blockIdx.y is the batch entry.
template <class Cfg>
__global__ void reduce_splits(DataParallelParams<Cfg> const p) {
  std::int64_t const mn = std::int64_t(p.m) * p.n;
  int const batch = blockIdx.y;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < mn; i += std::int64_t(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int s = 0; s < p.k_splits; ++s) sum += p.partials[(std::int64_t(s) * gridDim.y + batch) * mn + i];
    int const row = int(i / p.n), col = int(i % p.n);
    float const y = p.epilogue(sum, epilogue::Coord::in_batch(row, col, batch, p.batch_columns));
    p.d[batch * p.batch_stride_d + row * p.d_row_stride + col * p.d_col_stride] =
        epilogue::convert_output<typename Cfg::ElementD>(y);
  }
}
#endif

}  // namespace tessera::gemm
