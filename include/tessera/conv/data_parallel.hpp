// What a convolution on the data-parallel GEMM kernels (one block per output tile, group and K
// slice: gemm/sm80, gemm/gfx9) needs on the host: the argument checks that do not depend on the
// kernel, and the kernel's parameters, the direction's tensors as A, B and D of its GEMM
// (conv/implicit_gemm.hpp; group g is batch entry g):
//
//   direction  A                       B                                  D
//   Fprop      X (gathered), C / g on  W, rows of T R S C / g             Y, rows of K
//   Dgrad      dY (gathered), K / g on W (the loader walks a tap's rows)  dX, rows of C
//   Wgrad      dY, M-major, rows of K  X (gathered)                       dW, rows of T R S C / g
//
// conv::Conv under hipcc (conv/gfx9/conv.hpp) uses both; conv/conv.hpp's sm80 path fills the same
// parameters in place.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/conv/problem.hpp"
#include "tessera/core/status.hpp"
#include "tessera/gemm/data_parallel.hpp"

namespace tessera::conv {

// The chain sees a group's columns as the output's channels (epilogue::Coord::in_batch): Fprop's
// output channels, Dgrad's input channels. Wgrad's columns are (tap, channel) of each group's
// filters: its chain keeps the group as the batch (0).
constexpr int batch_columns(Problem const& p, Direction dir) {
  return dir == Direction::kFprop ? p.k_per_group() : dir == Direction::kDgrad ? p.c_per_group() : 0;
}

// The K slices of a run: split_k, or for 0 as many as fill the device's `sms` multiprocessors with
// the output tiles (gemm::split_k_rule; at most `cap`, each slice at least four k-tiles long).
template <class GemmCfg>
int split_k_for(Problem const& p, Direction dir, int split_k, int sms, bool persistent, int cap) {
  GemmShape const g = gemm_shape(p, dir);
  std::int64_t const tiles = ((g.m + GemmCfg::BM - 1) / GemmCfg::BM) * ((g.n + GemmCfg::BN - 1) / GemmCfg::BN) * p.groups;
  return std::max(1, gemm::split_k_rule(split_k, sms, tiles, int((g.k + GemmCfg::BK - 1) / GemmCfg::BK), persistent, cap));
}

// The kernel's parameters (Params: gemm::DataParallelParams<GemmCfg> with the problem, as the
// loaders' ConvParams) of direction Dir on tensors x, w, y (the one it writes: y, x, w), its K in
// `split` slices whose partial sums go to `partials`.
template <class GemmCfg, class Dir, class Params, class EX, class EW, class EY, class Epilogue>
Params data_parallel_params(Problem const& pr, EX* x, EW* w, EY* y, Epilogue const& epilogue, int split, float* partials) {
  constexpr Direction dir = std::is_same_v<Dir, Dgrad> ? Direction::kDgrad : std::is_same_v<Dir, Wgrad> ? Direction::kWgrad : Direction::kFprop;
  Params p{};
  GemmShape const g = gemm_shape(pr, dir);
  p.problem = pr;
  p.m = int(g.m);
  p.n = int(g.n);
  p.k = int(g.k);
  std::int64_t const taps = std::int64_t(pr.t) * pr.r * pr.s, cg = pr.c_per_group(), kg = pr.k_per_group();
  if constexpr (dir == Direction::kFprop) {
    p.a = x, p.batch_stride_a = cg;
    p.b = w, p.ldb = taps * cg, p.batch_stride_b = kg * taps * cg;
    p.d = y, p.d_row_stride = pr.k, p.batch_stride_d = kg;
  } else if constexpr (dir == Direction::kDgrad) {
    p.a = y, p.batch_stride_a = kg;
    p.b = w, p.batch_stride_b = kg * taps * cg;
    p.d = x, p.d_row_stride = pr.c, p.batch_stride_d = cg;
  } else {
    p.a = y, p.lda = pr.k, p.batch_stride_a = kg;
    p.b = x, p.batch_stride_b = cg;
    p.d = w, p.d_row_stride = taps * cg, p.batch_stride_d = kg * taps * cg;
  }
  p.d_col_stride = 1;
  p.tiles_m = int((g.m + GemmCfg::BM - 1) / GemmCfg::BM);
  p.tiles_n = int((g.n + GemmCfg::BN - 1) / GemmCfg::BN);
  p.raster_group = 8;
  p.batch_count = pr.groups;
  int const k_tiles = int((g.k + GemmCfg::BK - 1) / GemmCfg::BK);
  p.k_tiles_per_split = (k_tiles + split - 1) / split;
  p.k_splits = (k_tiles + p.k_tiles_per_split - 1) / p.k_tiles_per_split;  // no empty slice
  p.partials = partials;
  p.epilogue = epilogue;
  p.batch_columns = batch_columns(pr, dir);
  return p;
}

// The checks of a convolution's arguments that hold for the gather loaders of every data-parallel
// kernel: the problem, the pointers, 16-byte vectors of channels (C / g and K / g multiples of 8,
// 16-byte aligned tensors), Dgrad's k-tile of one tap (K / g a multiple of BlockTile K), the K
// split and the grid. `allocate` names the allocator in the fix ("hipMalloc").
template <class GemmCfg>
Status check_gather_arguments(Problem const& p, Direction dir, void const* x, void const* w, void const* y, int split_k, int max_split,
                              char const* allocate) {
  TESSERA_RETURN_IF_ERROR(check(p));
  auto const s = [](std::int64_t v) { return std::to_string(v); };
  if (x == nullptr || w == nullptr || y == nullptr)
    return Status::invalid_argument("conv::Conv: x, w and y must be device pointers (one is null)");
  if (dir == Direction::kDgrad && p.k_per_group() % GemmCfg::BK != 0)
    return Status::not_supported("conv::Conv: K / groups = " + s(p.k_per_group()) + " is not a multiple of BlockTile K = " + s(GemmCfg::BK) +
                                 " (a k-tile of Dgrad is one filter tap); use a BlockTile K that divides it, or pad the filters");
  auto const misaligned = [](void const* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0; };
  if (misaligned(x) || misaligned(w) || misaligned(y) || p.c_per_group() % 8 != 0 || p.k_per_group() % 8 != 0)
    return Status::misaligned("conv::Conv: x, w and y must be 16-byte aligned and C / groups and K / groups multiples of 8 "
                              "(16-byte vectors of channels; C / groups = " + s(p.c_per_group()) + ", K / groups = " +
                              s(p.k_per_group()) + "); allocate with " + allocate + " and pad the channels");
  if (split_k < 0 || split_k > max_split)
    return Status::invalid_argument("conv::Conv: split_k = " + s(split_k) + " must be 0 (automatic) to " + s(max_split));
  GemmShape const g = gemm_shape(p, dir);
  std::int64_t const blocks = ((g.m + GemmCfg::BM - 1) / GemmCfg::BM) * ((g.n + GemmCfg::BN - 1) / GemmCfg::BN) * p.groups * std::max(1, split_k);
  if (blocks > 2147483647)
    return Status::not_supported("conv::Conv: the grid has " + s(blocks) + " blocks, past 2^31 - 1; use a larger BlockTile or split the batch");
  return Status::success();
}

}  // namespace tessera::conv
