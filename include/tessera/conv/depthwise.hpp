// Depthwise convolution (groups = C = K: each channel its own T x R x S filter) as a direct kernel:
// it moves each input and output element about once and does 2 T R S flops per output, so its
// speed is the memory's, not the tensor cores' (an implicit GEMM of K = T R S and N = 1 per group
// would waste a tile's width). conv::Conv runs it for a depthwise Fprop or Dgrad; the epilogue chain
// sees Coord{pixel, channel, 0} as it does for the implicit GEMM's output.
//
// A thread computes one pixel's V channels (one 16-byte vector: V = 8 for 16-bit types), summing
// over the taps in float: Fprop reads X through each tap (d = z stride - pad + t dilation), Dgrad
// reads dY backwards (z = (d + pad - t dilation) / stride where that divides), each as one vector
// load, and the channels' filter values (W is C x T R S: a channel's taps are contiguous).
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/core/status.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/epilogue/tensor_stages.hpp"  // detail::load_as_float

namespace tessera::conv {

// A depthwise problem: groups = C = K, C / groups = K / groups = 1.
constexpr bool is_depthwise(Problem const& p) { return p.groups > 1 && p.groups == p.c && p.groups == p.k; }

namespace detail {

template <class E>
inline constexpr int kDepthwiseVector = 16 / int(sizeof(E));  // channels a thread computes

template <class E, class Epi>
struct DepthwiseParams {
  Problem problem;
  E const* in;   // Fprop X, Dgrad dY
  E const* w;    // C x T R S
  E* out;        // Fprop Y, Dgrad dX
  Epi epilogue;
  std::int64_t vectors;  // output pixels x C / V: one a thread
};

// The V values of a 16-byte vector at p, as floats.
template <class E>
TESSERA_DEVICE void load_vector(E const* p, float (&v)[kDepthwiseVector<E>]) {
  uint4 const raw = __ldg(reinterpret_cast<uint4 const*>(p));
  E e[kDepthwiseVector<E>];
  std::memcpy(e, &raw, sizeof(raw));
  TESSERA_UNROLL
  for (int j = 0; j < kDepthwiseVector<E>; ++j) {
    if constexpr (std::is_arithmetic_v<E>) v[j] = float(e[j]);
    else v[j] = e[j].to_float();
  }
}

template <class E, bool Dgrad, class Epi>
__global__ void __launch_bounds__(256) depthwise_kernel(DepthwiseParams<E, Epi> const p) {
  constexpr int V = kDepthwiseVector<E>;
  std::int64_t const index = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= p.vectors) return;
  Problem const& pr = p.problem;
  int const per_pixel = pr.c / V, c0 = int(index % per_pixel) * V;
  std::int64_t const pixel = index / per_pixel;
  // The pixel this thread writes (Fprop: an output pixel; Dgrad: an input pixel) and the extents
  // and pitch of the tensor it reads.
  Pixel const at = Dgrad ? input_pixel(pr, pixel) : output_pixel(pr, pixel);
  Array<int, 3> const from = Dgrad ? Array<int, 3>{pr.z(), pr.p(), pr.q()} : Array<int, 3>{pr.d, pr.h, pr.w};
  int const taps = pr.t * pr.r * pr.s;
  float acc[V] = {};
  for (int tap = 0; tap < taps; ++tap) {
    int const f[3] = {tap / (pr.r * pr.s), tap / pr.s % pr.r, tap % pr.s};
    Array<int, 3> src{};
    bool inside = true;
    TESSERA_UNROLL
    for (int dim = 0; dim < 3; ++dim) {
      src[dim] = Dgrad ? output_coord(pr, dim, at.at[dim], f[dim]) : input_coord(pr, dim, at.at[dim], f[dim]);
      inside = inside && src[dim] >= 0 && src[dim] < from[dim];
    }
    if (!inside) continue;
    float x[V];
    load_vector(p.in + (((std::int64_t(at.n) * from[0] + src[0]) * from[1] + src[1]) * from[2] + src[2]) * pr.c + c0, x);
    TESSERA_UNROLL
    for (int j = 0; j < V; ++j) acc[j] += x[j] * epilogue::detail::load_as_float(p.w, std::int64_t(c0 + j) * taps + tap);
  }
  E out[V];
  TESSERA_UNROLL
  for (int j = 0; j < V; ++j) out[j] = epilogue::convert_output<E>(p.epilogue(acc[j], epilogue::Coord{int(pixel), c0 + j, 0}));
  uint4 raw;
  std::memcpy(&raw, out, sizeof(raw));
  *reinterpret_cast<uint4*>(p.out + pixel * pr.c + c0) = raw;
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
  if (std::int64_t(p.t) * p.r * p.s * p.c > (std::int64_t(1) << 31) - 1)
    return Status::not_supported("conv::Conv: the depthwise filter has more than 2^31 - 1 elements; use a smaller filter");
  return Status::success();
}

// Runs the depthwise kernel (depthwise_can_implement passed): Fprop reads x and writes y, Dgrad
// reads y (dY) and writes x (dX).
template <class E, class Epi>
Status run_depthwise(Problem const& p, Direction dir, E* x, E const* w, E* y, Epi const& epilogue, cudaStream_t stream) {
  bool const dgrad = dir == Direction::kDgrad;
  std::int64_t const pixels = dgrad ? std::int64_t(p.n) * p.d * p.h * p.w : std::int64_t(p.n) * p.z() * p.p() * p.q();
  detail::DepthwiseParams<E, Epi> params{p, dgrad ? y : x, w, dgrad ? x : y, epilogue, pixels * (p.c / detail::kDepthwiseVector<E>)};
  std::int64_t const blocks = (params.vectors + 255) / 256;
  if (blocks > 2147483647) return Status::not_supported("conv::Conv: the depthwise grid is past 2^31 - 1 blocks; split the batch (N)");
  if (dgrad) detail::depthwise_kernel<E, true, Epi><<<unsigned(blocks), 256, 0, stream>>>(params);
  else detail::depthwise_kernel<E, false, Epi><<<unsigned(blocks), 256, 0, stream>>>(params);
  cudaError_t const e = cudaGetLastError();
  if (e != cudaSuccess) return Status::device_error(std::string("conv::Conv: the depthwise launch failed: ") + cudaGetErrorString(e));
  return Status::success();
}

}  // namespace tessera::conv
