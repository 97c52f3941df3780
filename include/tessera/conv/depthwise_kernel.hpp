// The depthwise kernel's device side (conv/depthwise.hpp chooses its tiling and launches it).
//
// Fprop and Dgrad in one forward form: output coordinate o of the written tensor reads source
// coordinate u = o step - offset + f dilation through filter position f, and the source is the
// read tensor spread out by `up` (only multiples of `up` hold its values, the rest are zeros).
// Fprop: step = stride, offset = pad_before, up = 1. Dgrad: step = 1, offset = dilation (F - 1) -
// pad_before, up = stride, the filter turned around (f -> F - 1 - f), since dX[h] sums
// dY[(h + pad - r dilation) / stride] W[r] over the r that the stride divides.
//
// A tile is `rows` x `groups` x Q outputs (Q neighbours along W a thread) of one depth and
// `vectors` channel vectors (16 bytes each: 8 channels of a 16-bit type). A block walks a run of
// tiles of one channel chunk, plane by plane (a plane: a tile's source under one depth tap): it
// copies the next plane (the tile's rows and columns plus the filter's halo) into shared memory
// with cp.async while it computes the current one, zeros where the source lies outside the tensor
// or between the rows of a spread-out dY, so that each input vector leaves L2 once a tile and the
// taps read shared memory without bounds checks. The filter of its channels waits in shared
// memory as floats, tap-major, staged once a block.
// With the filter width S and the step along W known at compile time, a thread reads each source
// vector of a filter row's window once ((Q - 1) step + S vectors for Q outputs) and keeps the
// row's S weight vectors in registers; otherwise (S = 0) it reads a vector a tap.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tessera/arch/sm80/cp_async.hpp"
#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/core/array.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"

namespace tessera::conv::detail {

template <class E>
inline constexpr int kDepthwiseVector = 16 / int(sizeof(E));  // channels a thread computes
inline constexpr int kDepthwiseThreads = 256;                 // a block's threads at most

// The blocks of 256 threads a multiprocessor holds (the kernel's __launch_bounds__: 80 registers a
// thread for 3, 128 for 2): 3 for Q sums of a filter row of width S up to 12 values of each
// channel (3 x 3 at Q = 4: the sums, the row's weights and an input vector fit 80), else 2.
constexpr int depthwise_min_blocks(int s, int q) { return s * q > 12 ? 2 : 3; }

// The problem in forward form (see the top of this file), dimensions 0..2 = depth, height, width.
struct DepthwiseGeometry {
  int n = 1, c = 0;          // images, channels
  Array<int, 3> to{}, from{};  // the extents of the tensor written and of the one read
  Array<int, 3> taps{}, step{}, offset{}, dilation{}, up{};
  int flip = 0;  // Dgrad: filter tap i is read as tap T R S - 1 - i (an int: the struct has no padding, compared by bytes)
};

// How a launch tiles the work (conv/depthwise.hpp's depthwise_tiling picks it): a block is
// vectors x rows x groups threads (x, y, z), a thread q outputs along W; the source tile is
// src_rows x src_cols pixels of `vectors` vectors, a source row `pitch` vectors apart in shared
// memory. The grid is chunks (of channels, fastest) x parts: part i of the tiles (row-major over
// images, output depths, tiles_down, tiles_across) is tiles [tiles i / parts, tiles (i + 1) / parts).
struct DepthwiseTiling {
  int q = 1;  // outputs a thread along W (the kernel's Q)
  int vectors = 0, rows = 1, groups = 1;
  int src_rows = 0, src_cols = 0, pitch = 0;
  int lanes = 0, row_lanes = 0;  // the copy of a plane: threads a source row (at most its vectors), rows at a time
  int chunks = 0, tiles_across = 0, tiles_down = 0;
  int tiles = 0;  // all planes' tiles: images x output depths x tiles_down x tiles_across
  int parts = 0;  // runs of tiles, a block each a chunk: the grid is chunks x parts
  std::int64_t blocks = 0;
  int filter_bytes = 0, smem_bytes = 0;
};

template <class E, class Epi>
struct DepthwiseParams {
  DepthwiseGeometry g;
  DepthwiseTiling tile;
  E const* in;  // Fprop X, Dgrad dY
  E const* w;   // C x T R S
  E* out;       // Fprop Y, Dgrad dX
  Epi epilogue;
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

// Whether source coordinate u of dimension dim holds a value of the read tensor (the index u / up).
TESSERA_DEVICE inline bool depthwise_holds(DepthwiseGeometry const& g, int dim, int u) {
  int const up = g.up[dim];
  return u >= 0 && u < up * g.from[dim] && (up == 1 || u % up == 0);
}

// Where a block is: the tile (image n, output depth z, tile row tr and column tc) and the depth
// tap td of its next plane, stepped one plane at a time (tiles in row-major order).
struct DepthwiseCursor {
  int n, z, tr, tc, td;
};
TESSERA_DEVICE inline void advance(DepthwiseCursor& c, DepthwiseGeometry const& g, DepthwiseTiling const& t) {
  if (++c.td < g.taps[0]) return;
  c.td = 0;
  if (++c.tc < t.tiles_across) return;
  c.tc = 0;
  if (++c.tr < t.tiles_down) return;
  c.tr = 0;
  if (++c.z < g.to[0]) return;
  c.z = 0, ++c.n;
}

// A thread's share of copying a source plane: the columns and vectors (slots: column * vectors +
// vector of a row) slot, slot + lanes, ... of rows first_row, first_row + row_lanes, ... (the
// tiling's lanes and row_lanes), worked out at each copy (fewer registers live over the sums).
struct DepthwiseLanes {
  int slot, first_row;
};
TESSERA_DEVICE inline DepthwiseLanes depthwise_lanes(DepthwiseTiling const& t) {
  int const thread = int((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x), first_row = thread / t.lanes;
  return {first_row < t.row_lanes ? thread % t.lanes : t.vectors * t.src_cols, first_row};  // threads left over copy nothing
}

// Starts copying the source plane of cursor c (a column of q-output runs wide, `groups` of them)
// into `tile` (src_rows x pitch vectors) with cp.async, and commits the group (empty where the depth
// tap falls outside: the plane is zeros and is not read). A thread checks a column once and steps a
// row by an addition; a source not spread out (up = 1, all but a strided Dgrad) checks a row by one
// comparison.
template <class E, class Epi>
TESSERA_DEVICE void depthwise_stage(DepthwiseParams<E, Epi> const& p, DepthwiseLanes const& l, DepthwiseCursor const& c, uint4* tile,
                                    int c0, int q) {
  DepthwiseGeometry const& g = p.g;
  DepthwiseTiling const& t = p.tile;
  int const ud = c.z * g.step[0] - g.offset[0] + c.td * g.dilation[0];
  if (depthwise_holds(g, 0, ud)) {
    int const uh0 = c.tr * t.rows * g.step[1] - g.offset[1], uw0 = c.tc * t.groups * q * g.step[2] - g.offset[2];
    std::int64_t const row_pitch = std::int64_t(g.from[2]) * g.c;
    E const* const plane = p.in + (std::int64_t(c.n) * g.from[0] + (g.up[0] == 1 ? ud : ud / g.up[0])) * g.from[1] * row_pitch + c0;
    int const per_row = t.vectors * t.src_cols, up = g.up[1];
    unsigned const rows = unsigned(up * g.from[1]);
    for (int slot = l.slot; slot < per_row; slot += t.lanes) {
      int const v = slot % t.vectors, uw = uw0 + slot / t.vectors;
      bool const column = depthwise_holds(g, 2, uw);
      E const* const src = column ? plane + std::int64_t(g.up[2] == 1 ? uw : uw / g.up[2]) * g.c + v * kDepthwiseVector<E> : p.in;
      std::uint32_t const dst = arch::smem_address(tile + slot);
      for (int row = l.first_row; row < t.src_rows; row += t.row_lanes) {
        int const uh = uh0 + row;
        bool const inside = column && unsigned(uh) < rows && (up == 1 || uh % up == 0);
        arch::cp_async_zfill<16>(dst + row * t.pitch * 16, inside ? src + (up == 1 ? uh : uh / up) * row_pitch : p.in, inside ? 16 : 0);
      }
    }
  }
  arch::cp_async_commit();
}

// A thread's sums over filter rows of depth tap `td`: Q outputs along W of V channels, reading
// the source tile from its row (`line`: the tile row under filter row 0, at the thread's first
// source column and vector) and the filter from shared memory (`filter`: tap-major, a tap's
// floats as V / 4 parts of all the block's vectors, so that a warp's 16-byte reads of one part
// fall in distinct banks).
template <class E, int S, int Step, int Q>
TESSERA_DEVICE void depthwise_rows(DepthwiseGeometry const& g, DepthwiseTiling const& t, uint4 const* line, float4 const* filter, int td,
                                   float (&acc)[Q][kDepthwiseVector<E>]) {
  constexpr int V = kDepthwiseVector<E>, Parts = V / 4;
  int const part_stride = t.vectors, tap_stride = Parts * t.vectors;
  auto const weights = [&](int tap, float (&f)[V]) {
    TESSERA_UNROLL
    for (int k = 0; k < Parts; ++k) {
      float4 const w4 = filter[tap * tap_stride + k * part_stride];
      f[4 * k] = w4.x, f[4 * k + 1] = w4.y, f[4 * k + 2] = w4.z, f[4 * k + 3] = w4.w;
    }
  };
  int const width = S > 0 ? S : g.taps[2], rows = g.taps[1], row_stride = g.dilation[1] * t.pitch;
  for (int r = 0; r < rows; ++r, line += row_stride) {
    int const tap0 = (td * rows + r) * width;
    if constexpr (S > 0) {
      // The window: source column j feeds output i through tap s = j - i Step.
      float f[S][V];
      TESSERA_UNROLL
      for (int s = 0; s < S; ++s) weights(tap0 + s, f[s]);
      TESSERA_UNROLL
      for (int j = 0; j < (Q - 1) * Step + S; ++j) {
        float x[V];
        to_float<E>(line[j * t.vectors], x);
        TESSERA_UNROLL
        for (int i = 0; i < Q; ++i) {
          int const s = j - i * Step;
          if (s < 0 || s >= S) continue;
          TESSERA_UNROLL
          for (int k = 0; k < V; ++k) acc[i][k] += x[k] * f[s][k];
        }
      }
    } else {
      for (int s = 0; s < width; ++s) {
        float f[V];
        weights(tap0 + s, f);
        TESSERA_UNROLL
        for (int i = 0; i < Q; ++i) {
          float x[V];
          to_float<E>(line[(i * g.step[2] + s * g.dilation[2]) * t.vectors], x);
          TESSERA_UNROLL
          for (int k = 0; k < V; ++k) acc[i][k] += x[k] * f[k];
        }
      }
    }
  }
}

// A block walks a run of tiles of one channel chunk (see the top of this file), copying the next
// plane while it computes the current one (two buffers). S > 0: a filter width of S at dilation 1
// and a step of Step along W; S = 0: any.
template <class E, class Epi, int S, int Step, int Q>
__global__ void __launch_bounds__(kDepthwiseThreads, depthwise_min_blocks(S, Q)) depthwise_kernel(DepthwiseParams<E, Epi> const p) {
  constexpr int V = kDepthwiseVector<E>;
  extern __shared__ uint4 depthwise_smem[];
  DepthwiseGeometry const& g = p.g;
  DepthwiseTiling const& t = p.tile;
  float* const filter = reinterpret_cast<float*>(depthwise_smem);  // (4, vectors, V / 4, taps)
  uint4* const tiles = depthwise_smem + t.filter_bytes / 16;       // 2 x (vectors, src_cols, src_rows), rows `pitch` apart
  int const tile_vectors = t.src_rows * t.pitch;
  // The block's chunk and run of tiles: blocks of one run position and neighbouring chunks start
  // together (whole pixels from DRAM); a run's tiles are neighbours (their halos from L2).
  int const chunk = int(blockIdx.x) % t.chunks, part = int(blockIdx.x) / t.chunks;
  int const first = int(std::int64_t(t.tiles) * part / t.parts), last = int(std::int64_t(t.tiles) * (part + 1) / t.parts);
  int const c0 = chunk * t.vectors * V;
  DepthwiseCursor use{0, 0, first / t.tiles_across % t.tiles_down, first % t.tiles_across, 0};
  use.z = first / (t.tiles_across * t.tiles_down) % g.to[0], use.n = first / (t.tiles_across * t.tiles_down * g.to[0]);
  int const planes = (last - first) * g.taps[0];
  if (planes > 0) depthwise_stage(p, depthwise_lanes(t), use, tiles, c0, Q);
  // The chunk's filter, C x T R S from channel c0 (16-byte aligned: c0 and the chunk are multiples
  // of V), read as vectors: element e is channel e / taps, tap e % taps, stored at (tap, part,
  // vector, lane) with the tap turned around for Dgrad.
  int const taps = g.taps[0] * g.taps[1] * g.taps[2];
  int const thread = int((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
  int const threads = int(blockDim.x * blockDim.y * blockDim.z);
  uint4 const* const w = reinterpret_cast<uint4 const*>(p.w + std::int64_t(c0) * taps);
  for (int i = thread; i < t.vectors * taps; i += threads) {
    float f[V];
    to_float<E>(__ldg(w + i), f);
    int cl = i * V / taps, tap = i * V % taps;
    TESSERA_UNROLL
    for (int j = 0; j < V; ++j) {
      int const at = g.flip ? taps - 1 - tap : tap;
      filter[(at * (V / 4) + cl % V / 4) * t.vectors * 4 + cl / V * 4 + cl % 4] = f[j];
      if (++tap == taps) tap = 0, ++cl;
    }
  }
  int const step_w = Step > 0 ? Step : g.step[2];
  int const line0 = int(threadIdx.y) * g.step[1] * t.pitch + int(threadIdx.z) * Q * step_w * t.vectors + int(threadIdx.x);
  float4 const* const weights = reinterpret_cast<float4 const*>(filter) + threadIdx.x;
  float acc[Q][V] = {};
  for (int k = 0; k < planes; ++k) {
    if (k + 1 < planes) {  // the next plane's cursor, stepped again below (fewer registers live over the sums)
      DepthwiseCursor next = use;
      advance(next, g, t);
      depthwise_stage(p, depthwise_lanes(t), next, tiles + (k + 1) % 2 * tile_vectors, c0, Q);
    } else {
      arch::cp_async_commit();  // an empty group: wait<1> below then waits for plane k
    }
    arch::cp_async_wait<1>();
    __syncthreads();  // plane k (and at k = 0 the filter) in shared memory for all
    if (depthwise_holds(g, 0, use.z * g.step[0] - g.offset[0] + use.td * g.dilation[0]))
      depthwise_rows<E, S, Step, Q>(g, t, tiles + k % 2 * tile_vectors + line0, weights, use.td, acc);
    if (use.td == g.taps[0] - 1) {  // the tile's last plane: its outputs
      int const h = use.tr * t.rows + int(threadIdx.y), w0 = (use.tc * t.groups + int(threadIdx.z)) * Q, c = c0 + int(threadIdx.x) * V;
      std::int64_t const out = ((std::int64_t(use.n) * g.to[0] + use.z) * g.to[1] + h) * g.to[2] + w0;  // output 0's pixel
      TESSERA_UNROLL
      for (int i = 0; i < Q; ++i) {
        if (h < g.to[1] && w0 + i < g.to[2]) {
          E y[V];
          TESSERA_UNROLL
          for (int j = 0; j < V; j += 2)
            epilogue::convert_output_pair<E>(p.epilogue(acc[i][j], epilogue::Coord{int(out + i), c + j, 0}),
                                             p.epilogue(acc[i][j + 1], epilogue::Coord{int(out + i), c + j + 1, 0}), y[j], y[j + 1]);
          uint4 raw;
          std::memcpy(&raw, y, sizeof(raw));
          *reinterpret_cast<uint4*>(p.out + (out + i) * g.c + c) = raw;
        }
        TESSERA_UNROLL
        for (int j = 0; j < V; ++j) acc[i][j] = 0;
      }
    }
    advance(use, g, t);
    __syncthreads();  // plane k's buffer is the one the next iteration copies into
  }
}

}  // namespace tessera::conv::detail
