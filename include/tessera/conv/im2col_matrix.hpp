// The Hopper small-channel path's first step: the input written out as its im2col matrix, one row
// an output pixel and one column a (t, r, s, c) filter position (c fastest), rows padded with
// zeros to `pitch` columns (a multiple of 8: 16-byte rows). An RGB stem (C = 3, 7 x 7) has 147
// columns: padding C to 8 and gathering a tap at a time would read and multiply 392, and C = 3 is
// below the 64 channels a TMA im2col k-tile holds. conv::Conv runs the rest as a 1 x 1 layer over
// this matrix (tiled TMA, K = the padded columns; the last k-tile's zeros come from TMA's
// out-of-bounds fill), whose output is the original layer's, pixel for pixel.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/core/config.hpp"
#include "tessera/core/status.hpp"

namespace tessera::conv {

namespace detail {
inline constexpr int kIm2colTileBytes = 48 * 1024;  // a block's rows of the matrix, in shared memory

// A block builds `rows` rows of the matrix in shared memory, a thread a filter row (t, r) of a
// pixel at a time (its S C columns are neighbours in the input: no division an element), then
// writes them out as one contiguous run of 16-byte vectors.
template <class E>
__global__ void __launch_bounds__(256) im2col_matrix_kernel(Problem const p, E const* x, E* a, int pitch, int rows) {
  extern __shared__ uint4 tile_smem[];
  E* const tile = reinterpret_cast<E*>(tile_smem);
  std::int64_t const total = std::int64_t(p.n) * p.z() * p.p() * p.q();
  int const filter_rows = p.t * p.r, width = p.s * p.c, columns = filter_rows * width, padding = pitch - columns;
  for (std::int64_t first = std::int64_t(blockIdx.x) * rows; first < total; first += std::int64_t(gridDim.x) * rows) {
    int const count = int(total - first < rows ? total - first : rows);
    for (int i = int(threadIdx.x); i < count * padding; i += int(blockDim.x)) tile[(i / padding) * pitch + columns + i % padding] = E(0.0f);
    for (int task = int(threadIdx.x); task < count * filter_rows; task += int(blockDim.x)) {
      int const m = task / filter_rows, f = task - m * filter_rows, t = f / p.r, r = f - t * p.r;
      Pixel const o = output_pixel(p, first + m);
      int const d = input_coord(p, 0, o.at[0], t), h = input_coord(p, 1, o.at[1], r);
      bool const row_inside = unsigned(d) < unsigned(p.d) && unsigned(h) < unsigned(p.h);
      E const* const in = x + std::int64_t(((o.n * p.d + (row_inside ? d : 0)) * p.h + (row_inside ? h : 0)) * p.w) * p.c;
      E* const out = tile + m * pitch + f * width;
      int w = input_coord(p, 2, o.at[2], 0);
      for (int s = 0; s < p.s; ++s, w += p.dilation[2]) {
        bool const inside = row_inside && unsigned(w) < unsigned(p.w);
        for (int c = 0; c < p.c; ++c) out[s * p.c + c] = inside ? in[w * p.c + c] : E(0.0f);
      }
    }
    __syncthreads();
    uint4* const dst = reinterpret_cast<uint4*>(a + first * pitch);  // the rows are contiguous in the matrix
    for (int i = int(threadIdx.x); i < count * pitch / 8; i += int(blockDim.x)) dst[i] = tile_smem[i];
    __syncthreads();
  }
}
}  // namespace detail

// The columns of the im2col matrix of p, rounded up to a multiple of 8.
constexpr int im2col_pitch(Problem const& p) { return (p.t * p.r * p.s * p.c + 7) / 8 * 8; }

// Whether im2col_matrix takes p: a row of its matrix fits a block's shared memory.
inline Status im2col_matrix_supported(Problem const& p) {
  if (std::int64_t(im2col_pitch(p)) * 2 > detail::kIm2colTileBytes)
    return Status::not_supported("conv::Conv: the im2col matrix of a small-channel input has " + std::to_string(im2col_pitch(p)) +
                                 " columns (T R S C), more than the " + std::to_string(detail::kIm2colTileBytes / 2) +
                                 " a block builds at once; use a smaller filter or a Warps<M, N> Config");
  return Status::success();
}

// Writes the im2col matrix of x (problem p, groups = 1) to a: N Z P Q rows of im2col_pitch(p)
// columns, 16-byte aligned.
template <class E>
Status im2col_matrix(Problem const& p, E const* x, E* a, cudaStream_t stream) {
  static_assert(sizeof(E) == 2, "conv::im2col_matrix: 16-bit elements (bfloat16_t, half_t)");
  TESSERA_RETURN_IF_ERROR(im2col_matrix_supported(p));
  int const pitch = im2col_pitch(p);
  int const rows = std::min(64, detail::kIm2colTileBytes / (pitch * 2));
  std::int64_t const blocks = (std::int64_t(p.n) * p.z() * p.p() * p.q() + rows - 1) / rows;
  detail::im2col_matrix_kernel<E><<<unsigned(blocks < 65535 ? blocks : 65535), 256, std::size_t(rows) * pitch * 2, stream>>>(p, x, a, pitch, rows);
  cudaError_t const e = cudaGetLastError();
  if (e != cudaSuccess) return Status::device_error(std::string("conv::Conv: writing the im2col matrix failed: ") + cudaGetErrorString(e));
  return Status::success();
}

}  // namespace tessera::conv
