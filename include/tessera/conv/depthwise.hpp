// Depthwise convolution (groups = C = K: each channel its own T x R x S filter) as a direct kernel:
// it moves each input and output element about once and does 2 T R S flops per output, so its
// speed is the memory's, not the tensor cores' (an implicit GEMM of K = T R S and N = 1 per group
// would waste a tile's width). conv::Conv runs it for a depthwise Fprop or Dgrad; the epilogue chain
// sees Coord{pixel, channel, 0} as it does for the implicit GEMM's output.
//
// A thread computes one pixel's V channels (one 16-byte vector: V = 8 for 16-bit types), summing
// over the taps in float: Fprop reads X through each tap (d = z stride - pad + t dilation), Dgrad
// reads dY backwards (z = (d + pad - t dilation) / stride where that divides), each as one vector
// load. A block covers up to 32 channel vectors of many pixels, and stages those channels' filter
// (W is C x T R S) in shared memory tap-major, so a tap's weights are one 16-byte read too. A
// thread computes several neighbours along W, which share their input vectors in registers where
// the filter width is 3, 5 or 7 at unit stride along W.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/core/status.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"

namespace tessera::conv {

// A depthwise problem: groups = C = K, C / groups = K / groups = 1.
constexpr bool is_depthwise(Problem const& p) { return p.groups > 1 && p.groups == p.c && p.groups == p.k; }

namespace detail {

template <class E>
inline constexpr int kDepthwiseVector = 16 / int(sizeof(E));  // channels a thread computes
inline constexpr int kDepthwiseThreads = 256;
inline constexpr int kDepthwiseFilterBytes = 48 * 1024;  // a block's filter slice in shared memory

// How many outputs along W a thread computes for a filter width known at compile time (0: any
// width, the general path): enough to share each input vector among several outputs, few enough
// for the row's window of inputs to stay in registers.
template <int S>
inline constexpr int kDepthwiseOutputs = S == 3 ? 3 : 2;

// How a launch tiles the work: a block's threads are `vectors` channel vectors (x, a chunk of
// vectors x V channels) by a tile of `tile_rows` x `tile_groups` output groups (y): a group is
// `outputs` neighbours along W of one row of the written tensor, and a tile's rows share their
// input rows in L1. The grid is tiles (x, each block walking several) by channel chunks (y).
struct DepthwiseShape {
  int vectors = 0;  // channel vectors a block covers: the largest divisor of C / V that fits
  int taps = 0;
  int tile_rows = 1, tile_groups = 1;
  int row_groups = 0;                        // groups in a row: ceil(W / outputs)
  int tiles_across = 0, tiles_down = 0;      // a plane's tiles (row_groups / tile_groups, rows / tile_rows, rounded up)
  std::int64_t tiles = 0;                    // all planes' (N x D)
};

template <class E, class Epi>
struct DepthwiseParams {
  Problem problem;
  E const* in;   // Fprop X, Dgrad dY
  E const* w;    // C x T R S
  E* out;        // Fprop Y, Dgrad dX
  Epi epilogue;
  DepthwiseShape shape;
};

// The V values of a 16-byte vector, as floats: bfloat16 by shifts, half by the conversion
// instruction (the types' portable decode handles subnormals and NaNs in code, which costs a
// kernel whose inner loop is conversions registers and time).
template <class E>
TESSERA_DEVICE void to_float(uint4 const& raw, float (&v)[kDepthwiseVector<E>]) {
  std::uint32_t const words[4] = {raw.x, raw.y, raw.z, raw.w};
  if constexpr (std::is_same_v<E, bfloat16_t> || std::is_same_v<E, half_t>) {
    TESSERA_UNROLL
    for (int i = 0; i < 4; ++i) {
      if constexpr (std::is_same_v<E, bfloat16_t>) {
        v[2 * i] = __uint_as_float(words[i] << 16);
        v[2 * i + 1] = __uint_as_float(words[i] & 0xFFFF0000u);
      } else {
        asm("cvt.f32.f16 %0, %1;" : "=f"(v[2 * i]) : "h"(std::uint16_t(words[i] & 0xFFFFu)));
        asm("cvt.f32.f16 %0, %1;" : "=f"(v[2 * i + 1]) : "h"(std::uint16_t(words[i] >> 16)));
      }
    }
  } else {
    E e[kDepthwiseVector<E>];
    std::memcpy(e, words, sizeof(words));
    TESSERA_UNROLL
    for (int j = 0; j < kDepthwiseVector<E>; ++j) {
      if constexpr (std::is_arithmetic_v<E>) v[j] = float(e[j]);
      else v[j] = e[j].to_float();
    }
  }
}

// Where pixel coordinate `at` of the written tensor reads along dim through filter position f:
// Fprop an input coordinate, Dgrad an output one (-1 where the stride does not divide); the caller
// checks the range.
template <bool Dgrad>
TESSERA_DEVICE int depthwise_source(Problem const& p, int dim, int at, int f) {
  if constexpr (!Dgrad) {
    return input_coord(p, dim, at, f);
  } else {
    int const x = at + p.pad_before[dim] - f * p.dilation[dim];
    int const stride = p.stride[dim];
    if (stride == 1) return x;
    return x >= 0 && x % stride == 0 ? x / stride : -1;
  }
}

// The 16-byte vector at W coordinate w of a row of `width` pixels (zeros outside the row).
TESSERA_DEVICE inline uint4 row_vector(void const* row, int w, int width, int channel_bytes) {
  if (unsigned(w) >= unsigned(width)) return uint4{0, 0, 0, 0};
  return __ldg(reinterpret_cast<uint4 const*>(static_cast<char const*>(row) + std::int64_t(w) * channel_bytes));
}

// One group's sums: Q neighbours along W of the written tensor, V channels from c, over the taps
// (t and r outer: a row outside the image is skipped whole). With the filter width S known and
// unit stride and dilation along W, the Q outputs of a filter row read Q + S - 1 neighbouring input
// vectors, loaded once (Fprop: output i, tap s reads w0 + i + s; Dgrad: w0 + i + S - 1 - s); a
// 3 x 3 filter loads its three rows' windows before any math. Otherwise each output reads its own.
template <class E, bool Dgrad, int S, int Q>
TESSERA_DEVICE void depthwise_sums(Problem const& pr, E const* image, uint4 const* weights, int vectors, Pixel const& at, int q0,
                                   Array<int, 3> const& from, float (&acc)[Q][kDepthwiseVector<E>]) {
  constexpr int V = kDepthwiseVector<E>;
  int const width = S > 0 ? S : pr.s, pitch = int(sizeof(E)) * pr.c;
  int const w0 = Dgrad ? q0 + pr.pad_before[2] - (S - 1) : q0 - pr.pad_before[2];
  auto const fma_tap = [&](uint4 const& w, uint4 const& in, float (&sum)[V]) {
    float f[V], x[V];
    to_float<E>(w, f);
    to_float<E>(in, x);
    TESSERA_UNROLL
    for (int j = 0; j < V; ++j) sum[j] += x[j] * f[j];
  };
  // A filter row over a window of inputs: each input vector and each tap's weights converted once.
  auto const window_row = [&]<int J>(uint4 const (&window)[J], uint4 const* row_weights) {
    constexpr int taps = J - Q + 1;
    float x[J][V];
    TESSERA_UNROLL
    for (int j = 0; j < J; ++j) to_float<E>(window[j], x[j]);
    TESSERA_UNROLL
    for (int s = 0; s < taps; ++s) {
      float f[V];
      to_float<E>(row_weights[s * vectors], f);
      TESSERA_UNROLL
      for (int i = 0; i < Q; ++i)
        TESSERA_UNROLL
        for (int j = 0; j < V; ++j) acc[i][j] += x[Dgrad ? i + taps - 1 - s : i + s][j] * f[j];
    }
  };
  for (int t = 0; t < pr.t; ++t) {
    int const d = depthwise_source<Dgrad>(pr, 0, at.at[0], t);
    if (unsigned(d) >= unsigned(from[0])) continue;
    E const* const plane = image + std::int64_t(d) * from[1] * from[2] * pr.c;
    if constexpr (S == 3) {
      uint4 raw[3][Q + 2];
      TESSERA_UNROLL
      for (int r = 0; r < 3; ++r) {
        int const h = depthwise_source<Dgrad>(pr, 1, at.at[1], r);
        bool const inside = unsigned(h) < unsigned(from[1]);
        E const* const row = plane + std::int64_t(inside ? h : 0) * from[2] * pr.c;
        TESSERA_UNROLL
        for (int j = 0; j < Q + 2; ++j) raw[r][j] = inside ? row_vector(row, w0 + j, from[2], pitch) : uint4{0, 0, 0, 0};
      }
      TESSERA_UNROLL
      for (int r = 0; r < 3; ++r) window_row(raw[r], weights + (t * 3 + r) * 3 * vectors);
    } else {
      for (int r = 0; r < pr.r; ++r) {
        int const h = depthwise_source<Dgrad>(pr, 1, at.at[1], r);
        if (unsigned(h) >= unsigned(from[1])) continue;
        E const* const row = plane + std::int64_t(h) * from[2] * pr.c;
        uint4 const* const row_weights = weights + (t * pr.r + r) * width * vectors;
        if constexpr (S > 0) {
          uint4 raw[Q + S - 1];
          TESSERA_UNROLL
          for (int j = 0; j < Q + S - 1; ++j) raw[j] = row_vector(row, w0 + j, from[2], pitch);
          window_row(raw, row_weights);
        } else {
          for (int s = 0; s < width; ++s)
            TESSERA_UNROLL
            for (int i = 0; i < Q; ++i) {
              int const w = depthwise_source<Dgrad>(pr, 2, q0 + i, s);
              if (unsigned(w) < unsigned(from[2])) fma_tap(row_weights[s * vectors], row_vector(row, w, from[2], pitch), acc[i]);
            }
        }
      }
    }
  }
}

// A block stages its channel chunk's filter in shared memory, transposed to tap-major so that a
// thread reads its V channels' weights of a tap as one 16-byte vector, then walks the groups of
// its chunk (a grid-stride loop: the filter is staged once a block).
template <class E, bool Dgrad, class Epi, int S>
__global__ void __launch_bounds__(kDepthwiseThreads, 2) depthwise_kernel(DepthwiseParams<E, Epi> const p) {
  constexpr int V = kDepthwiseVector<E>, Q = kDepthwiseOutputs<S>;
  extern __shared__ uint4 filter_smem[];
  E* const filter = reinterpret_cast<E*>(filter_smem);
  Problem const& pr = p.problem;
  int const taps = p.shape.taps, chunk = p.shape.vectors * V, c_chunk = int(blockIdx.y) * chunk;
  int const threads = int(blockDim.x * blockDim.y), thread = int(threadIdx.y * blockDim.x + threadIdx.x);
  // Element i of the chunk's filter is channel i / taps, tap i % taps: global reads in W's order
  // (coalesced), the channel and tap stepped without a division an element.
  int c = thread / taps, tap = thread % taps;
  int const c_step = threads / taps, tap_step = threads % taps;
  for (int i = thread; i < chunk * taps; i += threads) {
    filter[tap * chunk + c] = p.w[std::int64_t(c_chunk + c) * taps + tap];
    c += c_step, tap += tap_step;
    if (tap >= taps) tap -= taps, ++c;
  }
  __syncthreads();
  c = c_chunk + int(threadIdx.x) * V;
  uint4 const* const weights = reinterpret_cast<uint4 const*>(filter + threadIdx.x * V);
  // The extents of the tensor written (to) and read (from).
  Array<int, 3> const to = Dgrad ? Array<int, 3>{pr.d, pr.h, pr.w} : Array<int, 3>{pr.z(), pr.p(), pr.q()};
  Array<int, 3> const from = Dgrad ? Array<int, 3>{pr.z(), pr.p(), pr.q()} : Array<int, 3>{pr.d, pr.h, pr.w};
  DepthwiseShape const& sh = p.shape;
  int const row_in_tile = int(threadIdx.y) / sh.tile_groups, group_in_tile = int(threadIdx.y) % sh.tile_groups;
  for (std::int64_t tile = blockIdx.x; tile < sh.tiles; tile += gridDim.x) {
    Pixel at = pixel(tile, to[0], sh.tiles_down, sh.tiles_across);  // at.at: (depth, tile row, tile column)
    at.at[1] = at.at[1] * sh.tile_rows + row_in_tile;
    int const group = at.at[2] * sh.tile_groups + group_in_tile;
    if (at.at[1] >= to[1] || group >= sh.row_groups) continue;
    int const q0 = group * Q;
    at.at[2] = q0;
    float acc[Q][V] = {};
    depthwise_sums<E, Dgrad, S, Q>(pr, p.in + std::int64_t(at.n) * from[0] * from[1] * from[2] * pr.c + c, weights, sh.vectors, at, q0, from,
                                   acc);
    std::int64_t const first = ((std::int64_t(at.n) * to[0] + at.at[0]) * to[1] + at.at[1]) * to[2] + q0;  // output 0's pixel
    TESSERA_UNROLL
    for (int i = 0; i < Q; ++i) {
      if (q0 + i >= to[2]) break;
      E out[V];
      TESSERA_UNROLL
      for (int j = 0; j < V; ++j) out[j] = epilogue::convert_output<E>(p.epilogue(acc[i][j], epilogue::Coord{int(first + i), c + j, 0}));
      uint4 raw;
      std::memcpy(&raw, out, sizeof(raw));
      *reinterpret_cast<uint4*>(p.out + (first + i) * pr.c + c) = raw;
    }
  }
}

// The launch of depthwise_kernel<..., S> for problem p.
template <int S, bool Dgrad, class E, class Epi>
cudaError_t launch_depthwise(Problem const& p, E const* in, E const* w, E* out, Epi const& epilogue, cudaStream_t stream) {
  constexpr int Q = kDepthwiseOutputs<S>;
  DepthwiseShape shape;
  shape.taps = p.t * p.r * p.s;
  int const per_pixel = p.c / kDepthwiseVector<E>;
  int const fit = kDepthwiseFilterBytes / (shape.taps * 16);
  for (int v = std::min({per_pixel, 32, fit}); v >= 1 && shape.vectors == 0; --v)
    if (per_pixel % v == 0) shape.vectors = v;
  // The tile: about as many pixels down as across, within a block's threads.
  int const rows = Dgrad ? p.h : p.p(), width = Dgrad ? p.w : p.q(), groups = kDepthwiseThreads / shape.vectors;
  shape.row_groups = (width + Q - 1) / Q;
  shape.tile_groups = 1;
  while (shape.tile_groups * 2 <= shape.row_groups && shape.tile_groups * 2 * Q <= groups / (shape.tile_groups * 2)) shape.tile_groups *= 2;
  shape.tile_rows = std::max(1, std::min(groups / shape.tile_groups, rows));
  shape.tiles_across = (shape.row_groups + shape.tile_groups - 1) / shape.tile_groups;
  shape.tiles_down = (rows + shape.tile_rows - 1) / shape.tile_rows;
  shape.tiles = std::int64_t(p.n) * (Dgrad ? p.d : p.z()) * shape.tiles_down * shape.tiles_across;
  int const chunks = per_pixel / shape.vectors;
  // One wave of blocks (two resident a multiprocessor), each walking its tiles: the filter is
  // staged once a block.
  int sms = 132;
  if (int device = 0; cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  std::int64_t const blocks = std::min<std::int64_t>(shape.tiles, std::max<std::int64_t>(1, std::int64_t(sms) * 2 / chunks));
  dim3 const grid{unsigned(blocks), unsigned(chunks)};
  dim3 const block{unsigned(shape.vectors), unsigned(shape.tile_rows * shape.tile_groups)};
  std::size_t const smem = std::size_t(shape.taps) * shape.vectors * 16;
  depthwise_kernel<E, Dgrad, Epi, S><<<grid, block, smem, stream>>>(DepthwiseParams<E, Epi>{p, in, w, out, epilogue, shape});
  return cudaGetLastError();
}

// Picks the kernel for the filter: 3 x 3, and widths 5 and 7, at unit stride and dilation along W
// read windows of inputs; any other, the general path.
template <bool Dgrad, class E, class Epi>
cudaError_t dispatch_depthwise(Problem const& p, E const* in, E const* w, E* out, Epi const& epilogue, cudaStream_t stream) {
  bool const unit = p.stride[2] == 1 && p.dilation[2] == 1;
  if (unit && p.s == 3 && p.r == 3) return launch_depthwise<3, Dgrad>(p, in, w, out, epilogue, stream);
  if (unit && p.s == 5) return launch_depthwise<5, Dgrad>(p, in, w, out, epilogue, stream);
  if (unit && p.s == 7) return launch_depthwise<7, Dgrad>(p, in, w, out, epilogue, stream);
  return launch_depthwise<0, Dgrad>(p, in, w, out, epilogue, stream);
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
  if (p.c / V > 65535)  // a launch's channel chunks (grid y) are at most 65535 of one vector
    return Status::not_supported("conv::Conv: the depthwise kernel takes at most " + s(65535 * V) + " channels (C = " + s(p.c) +
                                 "); split the channels over several calls");
  auto const misaligned = [](void const* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0; };
  if (misaligned(x) || misaligned(w) || misaligned(y))
    return Status::misaligned("conv::Conv: the depthwise kernel needs x, w and y 16-byte aligned; allocate with cudaMalloc");
  if (std::int64_t(p.t) * p.r * p.s * 16 > detail::kDepthwiseFilterBytes)
    return Status::not_supported("conv::Conv: the depthwise kernel holds a channel vector's taps in shared memory, at most " +
                                 s(detail::kDepthwiseFilterBytes / 16) + " taps (T x R x S = " + s(std::int64_t(p.t) * p.r * p.s) +
                                 "); use a smaller filter");
  return Status::success();
}

// Runs the depthwise kernel (depthwise_can_implement passed): Fprop reads x and writes y, Dgrad
// reads y (dY) and writes x (dX).
template <class E, class Epi>
Status run_depthwise(Problem const& p, Direction dir, E* x, E const* w, E* y, Epi const& epilogue, cudaStream_t stream) {
  cudaError_t const e = dir == Direction::kDgrad ? detail::dispatch_depthwise<true>(p, y, w, x, epilogue, stream)
                                                 : detail::dispatch_depthwise<false>(p, x, w, y, epilogue, stream);
  if (e != cudaSuccess) return Status::device_error(std::string("conv::Conv: the depthwise launch failed: ") + cudaGetErrorString(e));
  return Status::success();
}

}  // namespace tessera::conv
