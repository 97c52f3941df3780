// The small-channel path's first step: a tensor of `rows` rows of `channels` channels (an RGB
// image's 3) copied to rows of `padded` channels, the new ones zero, so that the implicit GEMM's
// 16-byte vectors hold whole pixels (8 channels of 16-bit types). conv::Conv does this in its
// workspace for an Fprop with C < 8 on the sm80 kernel, for the input and for the filters, so that
// a user passes the tensors as they are.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "tessera/core/config.hpp"
#include "tessera/core/status.hpp"

namespace tessera::conv {

namespace detail {
template <class E>
__global__ void pad_channels_kernel(E const* in, E* out, std::int64_t rows, int channels, int padded) {
  std::int64_t const count = rows * padded;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t const row = i / padded;
    int const c = int(i % padded);
    out[i] = c < channels ? in[row * channels + c] : E(0.0f);
  }
}
}  // namespace detail

// Bytes of `rows` rows of `padded` channels of E, rounded up to 256 (the next buffer's alignment).
template <class E>
constexpr std::size_t padded_bytes(std::int64_t rows, int padded) {
  return (std::size_t(rows) * std::size_t(padded) * sizeof(E) + 255) / 256 * 256;
}

template <class E>
Status pad_channels(E const* in, E* out, std::int64_t rows, int channels, int padded, cudaStream_t stream) {
  std::int64_t const blocks = (rows * padded + 255) / 256;
  detail::pad_channels_kernel<E><<<unsigned(blocks < 65535 ? blocks : 65535), 256, 0, stream>>>(in, out, rows, channels, padded);
  cudaError_t const e = cudaGetLastError();
  if (e != cudaSuccess) return Status::device_error(std::string("conv::Conv: padding the channels failed: ") + cudaGetErrorString(e));
  return Status::success();
}

}  // namespace tessera::conv
