// Depthwise convolution (groups = C = K: each channel its own T x R x S filter) as a direct kernel:
// it moves each input and output element about once and does 2 T R S flops per output, so its
// speed is the memory's, not the tensor cores' (an implicit GEMM of K = T R S and N = 1 per group
// would waste a tile's width). conv::Conv runs it for a depthwise Fprop or Dgrad; the epilogue chain
// sees Coord{pixel, channel, 0} as it does for the implicit GEMM's output.
//
// The kernel (conv/depthwise_kernel.hpp): a block walks a run of output tiles of its channels,
// each computed from a copy of the tile's input (plus the filter's halo) in shared memory while the
// next one is copied. This file puts the problem in the kernel's form, picks the tile by a cost
// model (once per problem and host thread) and launches one block per resident slot.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "tessera/conv/depthwise_kernel.hpp"
#include "tessera/conv/problem.hpp"
#include "tessera/core/status.hpp"

namespace tessera::conv {

// A depthwise problem: groups = C = K, C / groups = K / groups = 1.
constexpr bool is_depthwise(Problem const& p) { return p.groups > 1 && p.groups == p.c && p.groups == p.k; }

namespace detail {

// A block's shared memory at most: what every sm_80+ device gives a block (sm_86: 99 KB); the
// tile search weighs how many blocks of a size share a multiprocessor.
inline constexpr int kDepthwiseSmemLimit = 96 * 1024;

// Outputs a thread computes along W (the kernel's Q) for the filter width S of its variant (0:
// the general one): 4 on the window path (an input vector converted once serves up to 4 outputs;
// depthwise_min_blocks gives the registers), 2 on the general one.
constexpr int depthwise_outputs(int s) { return s > 0 ? 4 : 2; }

// The kernel variant's filter width: S when dispatch_depthwise runs the window of S (3, 5 or 7 at
// dilation 1, step 1 or 2 along W; 7 at step 1), else 0.
inline int depthwise_width(DepthwiseGeometry const& g) {
  int const s = g.taps[2], step = g.step[2];
  bool const window = g.dilation[2] == 1 && (step == 1 || step == 2) && (s == 3 || s == 5 || (s == 7 && step == 1));
  return window ? s : 0;
}

// The problem in the kernel's forward form (conv/depthwise_kernel.hpp).
inline DepthwiseGeometry depthwise_geometry(Problem const& p, bool dgrad) {
  DepthwiseGeometry g;
  g.n = p.n, g.c = p.c, g.flip = int(dgrad);
  for (int dim = 0; dim < 3; ++dim) {
    int const extent = p.input_extent(dim), out = p.output_extent(dim), f = p.filter_extent(dim);
    g.taps[dim] = f, g.dilation[dim] = p.dilation[dim];
    g.to[dim] = dgrad ? extent : out;
    g.from[dim] = dgrad ? out : extent;
    g.step[dim] = dgrad ? 1 : p.stride[dim];
    g.up[dim] = dgrad ? p.stride[dim] : 1;
    g.offset[dim] = dgrad ? p.dilation[dim] * (f - 1) - p.pad_before[dim] : p.pad_before[dim];
  }
  return g;
}

// The tiling of `vectors` channel vectors by `rows` x `groups` runs of q outputs a block.
inline DepthwiseTiling depthwise_tile(DepthwiseGeometry const& g, int vector, int q, int vectors, int rows, int groups) {
  DepthwiseTiling t;
  t.q = q, t.vectors = vectors, t.rows = rows, t.groups = groups;
  t.src_rows = (rows - 1) * g.step[1] + (g.taps[1] - 1) * g.dilation[1] + 1;
  t.src_cols = (groups * q - 1) * g.step[2] + (g.taps[2] - 1) * g.dilation[2] + 1;
  // A quarter warp's 16-byte reads are free of bank conflicts when they hit 8 distinct 16-byte
  // columns of the banks: with 1, 2 or 4 vectors a pixel they span 8 / vectors tile rows, step[1]
  // source rows apart, so the pitch pads a source row to an odd multiple of `vectors` (mod 8).
  t.pitch = t.src_cols * vectors;
  if (vectors == 1 || vectors == 2 || vectors == 4)
    for (int pad = 0; pad < 8; ++pad)
      if (int const k = g.step[1] * (t.pitch + pad) % 8; k % vectors == 0 && (k / vectors) % 2 == 1) {
        t.pitch += pad;
        break;
      }
  int const threads = vectors * rows * groups, per_row = vectors * t.src_cols;
  t.lanes = std::min(threads, per_row), t.row_lanes = threads / t.lanes;
  t.chunks = g.c / vector / vectors;
  t.tiles_down = (g.to[1] + rows - 1) / rows;
  t.tiles_across = (g.to[2] + groups * q - 1) / (groups * q);
  std::int64_t const tiles = std::int64_t(g.n) * g.to[0] * t.tiles_down * t.tiles_across;
  t.tiles = int(std::min<std::int64_t>(tiles, 0x7FFFFFFF));  // at most the outputs' pixels (problem.hpp: < 2^31)
  t.parts = 1, t.blocks = t.chunks;
  t.filter_bytes = g.taps[0] * g.taps[1] * g.taps[2] * vectors * vector * 4;
  t.smem_bytes = t.filter_bytes + 2 * t.src_rows * t.pitch * 16;  // two planes: one computed, the next copied
  return t;
}

// Splits tiling t's tiles into runs for `resident` blocks a multiprocessor on `sms` of them, so
// that all blocks run at once (at least a block a chunk, at most a tile a block).
inline void depthwise_grid(DepthwiseTiling& t, int sms, int resident) {
  t.parts = int(std::clamp<std::int64_t>(std::int64_t(sms) * resident / t.chunks, 1, t.tiles));
  t.blocks = std::int64_t(t.chunks) * t.parts;
}

// The blocks of `threads` threads that fit a multiprocessor of `smem` bytes of shared memory
// beside each other, for a kernel compiled for `min_blocks` of 256 threads (its registers).
inline int depthwise_fit(int threads, int smem_bytes, int smem, int min_blocks) {
  int const warps = (threads + 31) / 32, registers = 65536 / (kDepthwiseThreads * min_blocks) / 8 * 8;
  return std::max(1, std::min({65536 / (warps * 32 * registers), smem / (smem_bytes + 1024), 64 / warps, 32}));
}

// The tiling of least estimated time, by a model of a multiprocessor's work in 16-byte vectors:
// its blocks' runs of tiles (the longest run), a tile the source it copies (halo included; a
// block's piece of a pixel under 64 bytes, a DRAM burst, costs as if it were 64: on the H200 the
// 32-byte pieces of 56 x 56 x 128 ran 30.6 us against 26.5 for 256-byte ones), its output slots
// (idle ones at the edges included) weighted by the taps a slot computes, and a fixed cost
// (barriers, the epilogue's set-up); the whole divided by the warps' share of hiding latency,
// 1 / (1 + 8 / warps) (H200: 24 resident warps ran the 3 x 3 layers 7-15% faster than 12 or 16). The candidates: a block's
// channel vectors the largest divisor of C / V under each power of two up to 32, runs a row from
// 1 to 64 (those that split the row evenly), rows to fill 128 or 256 threads, balanced over the
// tiles. `smem` is the multiprocessor's shared memory, `min_blocks` the kernel's
// (depthwise_min_blocks). Returns blocks = 0 when no tile fits kDepthwiseSmemLimit.
inline DepthwiseTiling depthwise_tiling(DepthwiseGeometry const& g, int vector, int q, int sms, int smem, int min_blocks) {
  int const per_pixel = g.c / vector, runs = (g.to[2] + q - 1) / q, taps = g.taps[0] * g.taps[1] * g.taps[2];
  DepthwiseTiling best;
  double best_time = 0;
  int last = 0;
  for (int cap = 1; cap <= 32; cap *= 2) {
    int vectors = std::min(cap, per_pixel);
    while (per_pixel % vectors != 0) --vectors;
    if (vectors == last) continue;
    last = vectors;
    for (int groups = 1; groups <= std::min(runs, 64) && vectors * groups <= kDepthwiseThreads; ++groups) {
      int const across = (runs + groups - 1) / groups;
      if ((runs + across - 1) / across != groups) continue;  // a smaller run count gives the same tiles
      for (int threads = kDepthwiseThreads / 2; threads <= kDepthwiseThreads; threads *= 2) {
        // Rows: as many as the threads and kDepthwiseSmemLimit allow, then balanced over the tiles.
        DepthwiseTiling const one = depthwise_tile(g, vector, q, vectors, 1, groups);
        int const src_rows = (kDepthwiseSmemLimit - one.filter_bytes) / (2 * one.pitch * 16);
        int const most = std::min(threads / (vectors * groups), (src_rows - one.src_rows) / g.step[1] + 1);
        if (one.smem_bytes > kDepthwiseSmemLimit || most < 1) continue;
        int const down = (g.to[1] + most - 1) / most;
        DepthwiseTiling t = depthwise_tile(g, vector, q, vectors, (g.to[1] + down - 1) / down, groups);
        int const used = vectors * t.rows * groups, fit = depthwise_fit(used, t.smem_bytes, smem, min_blocks);
        depthwise_grid(t, sms, fit);
        double const staged = double(t.src_rows) * t.src_cols * vectors * std::max(1.0, 4.0 / vectors);
        double const tile = staged + double(used) * q * (1 + taps / 18.0) + 32;
        double const warps = double(std::min<std::int64_t>(fit, (t.blocks + sms - 1) / sms)) * ((used + 31) / 32);
        double const time = double((t.blocks + sms - 1) / sms) * ((t.tiles + t.parts - 1) / t.parts) * tile * (1 + 8 / warps);
        if (best.blocks == 0 || time < best_time) best = t, best_time = time;
      }
    }
  }
  return best;
}

// The launch of depthwise_kernel<..., S, Step, Q> for problem p under tiling t.
template <int S, int Step, int Q, class E, class Epi>
cudaError_t launch_depthwise(DepthwiseGeometry const& g, DepthwiseTiling const& t, E const* in, E const* w, E* out, Epi const& epilogue,
                             cudaStream_t stream) {
  auto const kernel = depthwise_kernel<E, Epi, S, Step, Q>;
  if (t.smem_bytes > 48 * 1024)
    if (cudaError_t const e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, t.smem_bytes); e != cudaSuccess)
      return e;
  dim3 const block{unsigned(t.vectors), unsigned(t.rows), unsigned(t.groups)};
  kernel<<<dim3{unsigned(t.blocks)}, block, std::size_t(t.smem_bytes), stream>>>(DepthwiseParams<E, Epi>{g, t, in, w, out, epilogue});
  return cudaGetLastError();
}

// The device's multiprocessors and their shared memory.
inline void depthwise_device(int& sms, int& smem) {
  sms = 132, smem = 227 * 1024;
  if (int device = 0; cudaGetDevice(&device) == cudaSuccess) {
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  }
}

// Tiles and launches the kernel for the filter: widths 3, 5 and 7 at dilation 1 along W, step 1
// or 2, read windows of inputs; any other, the general path.
template <int S, int Step, class E, class Epi>
cudaError_t tile_and_launch(DepthwiseGeometry const& g, E const* in, E const* w, E* out, Epi const& epilogue, cudaStream_t stream) {
  constexpr int Q = depthwise_outputs(S);
  // The last problem's tiling, a thread's: the search costs microseconds, which a small layer
  // (a few microseconds on the device) would pay at every call.
  thread_local struct {
    int device = -1;
    DepthwiseGeometry g;
    DepthwiseTiling t;
  } last;
  int device = 0;
  if (cudaError_t const e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (device != last.device || std::memcmp(&g, &last.g, sizeof(g)) != 0) {
    int sms = 0, smem = 0;
    depthwise_device(sms, smem);
    last.t = depthwise_tiling(g, kDepthwiseVector<E>, Q, sms, smem, depthwise_min_blocks(S, Q));
    last.device = device, last.g = g;
  }
  if (last.t.blocks == 0) return cudaErrorInvalidConfiguration;  // depthwise_can_implement refuses it first
  return launch_depthwise<S, Step, Q>(g, last.t, in, w, out, epilogue, stream);
}

template <class E, class Epi>
cudaError_t dispatch_depthwise(DepthwiseGeometry const& g, E const* in, E const* w, E* out, Epi const& epilogue, cudaStream_t stream) {
  bool const one = g.step[2] == 1;
  switch (depthwise_width(g)) {
    case 3: return one ? tile_and_launch<3, 1>(g, in, w, out, epilogue, stream) : tile_and_launch<3, 2>(g, in, w, out, epilogue, stream);
    case 5: return one ? tile_and_launch<5, 1>(g, in, w, out, epilogue, stream) : tile_and_launch<5, 2>(g, in, w, out, epilogue, stream);
    case 7: return tile_and_launch<7, 1>(g, in, w, out, epilogue, stream);
    default: return tile_and_launch<0, 0>(g, in, w, out, epilogue, stream);
  }
}

}  // namespace detail

// Whether the depthwise kernel takes the problem: Fprop or Dgrad, C a multiple of the vector (8
// channels of 16-bit types), 16-byte aligned tensors.
template <class E>
Status depthwise_can_implement(Problem const& p, Direction dir, void const* x, void const* w, void const* y) {
  auto const s = [](std::int64_t v) { return std::to_string(v); };
  if (dir == Direction::kWgrad)
    return Status::not_supported("conv::Conv: Wgrad of a depthwise convolution (groups = C = K) is not implemented yet; "
                                 "Fprop and Dgrad run depthwise");
  constexpr int V = detail::kDepthwiseVector<E>;
  if (p.c % V != 0)
    return Status::misaligned("conv::Conv: the depthwise kernel reads " + s(V) + " channels a vector; C = " + s(p.c) +
                              " is not a multiple of " + s(V) + ": pad the channels");
  auto const misaligned = [](void const* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0; };
  if (misaligned(x) || misaligned(w) || misaligned(y))
    return Status::misaligned("conv::Conv: the depthwise kernel needs x, w and y 16-byte aligned; allocate with cudaMalloc");
  // The smallest tile (one channel vector, one run of outputs) must fit a block's shared memory.
  detail::DepthwiseGeometry const g = detail::depthwise_geometry(p, dir == Direction::kDgrad);
  detail::DepthwiseTiling const t = detail::depthwise_tile(g, V, detail::depthwise_outputs(detail::depthwise_width(g)), 1, 1, 1);
  if (t.smem_bytes > detail::kDepthwiseSmemLimit)
    return Status::not_supported("conv::Conv: the depthwise kernel's smallest tile (the filter and its input window) needs " +
                                 s(t.smem_bytes) + " bytes of shared memory, more than " + s(detail::kDepthwiseSmemLimit) +
                                 "; use a smaller filter or dilation");
  return Status::success();
}

// Runs the depthwise kernel (depthwise_can_implement passed): Fprop reads x and writes y, Dgrad
// reads y (dY) and writes x (dX).
template <class E, class Epi>
Status run_depthwise(Problem const& p, Direction dir, E* x, E const* w, E* y, Epi const& epilogue, cudaStream_t stream) {
  bool const dgrad = dir == Direction::kDgrad;
  detail::DepthwiseGeometry const g = detail::depthwise_geometry(p, dgrad);
  cudaError_t const e = dgrad ? detail::dispatch_depthwise(g, y, w, x, epilogue, stream) : detail::dispatch_depthwise(g, x, w, y, epilogue, stream);
  if (e != cudaSuccess) return Status::device_error(std::string("conv::Conv: the depthwise launch failed: ") + cudaGetErrorString(e));
  return Status::success();
}

}  // namespace tessera::conv
