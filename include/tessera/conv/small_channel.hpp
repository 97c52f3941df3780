// A direct tensor-core kernel for a dense Fprop with few input channels (C = 1 to 7: an RGB stem),
// 16-bit X and W, f32 accumulation. The implicit GEMM's k-tiles are 8-channel vectors of one tap,
// which C = 3 would fill with zeros (8 / C times the multiply-adds), and writing the im2col
// matrix out first moves N P Q x T R S C x 2 bytes through memory twice (122 MB for the ResNet
// stem at N = 32, against 61 MB of input and output). Here nothing but X, W and Y touches memory:
//
//   a block      holds BN <= 64 output channels' filters in shared memory, rows of T R S C columns
//                (c fastest, as W stores them) padded to a multiple of 16, and walks boxes of up to
//                128 output pixels of one (n, z) plane (a persistent loop: the filters are staged
//                once a block);
//   a box        is a run of consecutive output pixels: 128 across rows where the input's padded
//                width fits (`flat`), else a segment of one row; the block stages the patch of X
//                it reads (the rows and the width it needs, zero-padded) in shared memory, the
//                in-image runs as 16-byte vectors;
//   a warp       computes 32 of the box's pixels by BN channels with mma.sync m16n8k16: its A
//                fragment is gathered from the patch (element (pixel m, column j) sits at
//                row_offset(m) + column_offset(j), the latter a table built once a block; where
//                stride x C is even and the dilation along W 1, as on the stem, a column pair is
//                one aligned word), its B fragments are ldmatrix reads of the filters;
//   the output   goes through the chain (Cfg::Epilogue, Coord{output pixel flattened, channel, 0}
//                as the implicit GEMM gives it) 8 channels at a time, read back from a staged
//                row of floats, and is stored as vectors.
//
// conv::Conv runs it for the small-channel case of both Warps and Warpgroups Configs (16-bit types);
// no workspace. docs/conv.md has the details, docs/performance.md the measurements (the stem on an
// H200: 94 us at N = 32, 4.2 x cuDNN).
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "tessera/arch/sm80/ldmatrix.hpp"
#include "tessera/arch/sm80/mma.hpp"
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/status.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"

namespace tessera::conv {

namespace detail {

inline constexpr int kSmallWarps = 4, kSmallThreads = 32 * kSmallWarps;
inline constexpr int kSmallBox = 32 * kSmallWarps;  // output pixels a box holds at most (a warp's 32 each)
inline constexpr int kSmallChannels = 64;           // output channels a block holds at most (8 MMA columns)
// A flat box's patch spans the padded input's whole width: taken while it fits this many bytes
// (the stem's is 15 KB), so that four blocks share a multiprocessor.
inline constexpr int kSmallFlatPatchBytes = 32 * 1024;

// How a launch tiles the problem (small_channel_shape): the filter's columns, the block's
// channels, the boxes and the patch, and the shared memory they take.
struct SmallChannelShape {
  bool pairs = false;            // A's column pairs are aligned 32-bit words of the patch (below)
  int row_columns = 0;           // a filter row's (t, r) columns: S C, rounded up to even for pairs
  int columns = 0, k_steps = 0;  // T R row_columns, and that in steps of 16 (the MMA's k)
  int channels = 0;              // BN: a block's output channels, a multiple of 8
  bool flat = false;             // boxes run across rows (else: segments of one row)
  int box = 0;                   // a box's pixels: kSmallBox (flat) or a row segment's
  int boxes_per_plane = 0;       // of the P Q pixels of one (n, z)
  int boxes = 0;                 // all planes'
  int depth = 0, rows = 0, width = 0;  // the patch: (T - 1) dilation + 1 planes of `rows` rows of `width` pixels
  int filter_bytes = 0, table_bytes = 0, values_bytes = 0, stage_bytes = 0, patch_bytes = 0, smem_bytes = 0;
  TESSERA_HD constexpr int filter_pitch() const { return k_steps * 16 + 8; }  // elements: ldmatrix's 8 rows on distinct banks
  // Filter rows staged: the channels rounded up to 16, as ldmatrix_x4 reads two n-tiles' rows at a
  // time (an odd last n-tile's partner is zeros, not the memory past the filters).
  TESSERA_HD constexpr int filter_channels() const { return (channels + 15) / 16 * 16; }
  TESSERA_HD constexpr int stage_pitch() const { return channels + 8; }        // floats: a half-warp's pair writes on distinct banks
};

// The shared memory of a block, carved in this order (each part a multiple of 16 bytes).
template <class E>
struct SmallChannelSmem {
  E* filter;              // filter_channels x filter_pitch: W's rows k0.., zero past T R S C and past K
  int* column_offset;     // k_steps x 16: the patch byte offset of column j (pairs: of even j, and the pair's mask)
  float* column_values;   // the chain's column vectors at the block's channels
  float* stage;           // kSmallWarps x 8 rows x stage_pitch floats
  std::uint16_t* patch;   // depth x rows x width x C
  TESSERA_DEVICE static SmallChannelSmem carve(SmallChannelShape const& sh, void* base) {
    char* at = static_cast<char*>(base);
    SmallChannelSmem s;
    s.filter = reinterpret_cast<E*>(at);
    s.column_offset = reinterpret_cast<int*>(at += sh.filter_bytes);
    s.column_values = reinterpret_cast<float*>(at += sh.table_bytes);
    s.stage = reinterpret_cast<float*>(at += sh.values_bytes);
    s.patch = reinterpret_cast<std::uint16_t*>(at + sh.stage_bytes);
    return s;
  }
};

template <class E, class EY, class Epi>
struct SmallChannelParams {
  Problem problem;
  E const* x;
  E const* w;
  EY* y;
  Epi epilogue;
  SmallChannelShape shape;
};

// A box: `count` consecutive output pixels of plane n Z + z from pixel `first` (row-major p, q),
// which read input rows from p_first's and columns from q_origin's (0 for a flat box: its patch
// spans the whole padded width).
struct SmallBox {
  int n, z, first, count, p_first, q_origin, p_last;
  TESSERA_DEVICE static SmallBox at(SmallChannelShape const& sh, Problem const& pr, int index) {
    int const plane = index / sh.boxes_per_plane, i = index % sh.boxes_per_plane, q = pr.q();
    SmallBox b;
    b.n = plane / pr.z(), b.z = plane % pr.z();
    if (sh.flat) {
      b.first = i * sh.box, b.count = min(sh.box, pr.p() * q - b.first);
    } else {  // boxes_per_plane = P x segments
      int const segments = sh.boxes_per_plane / pr.p(), row = i / segments, seg = i % segments;
      b.first = row * q + seg * sh.box, b.count = min(sh.box, q - seg * sh.box);
    }
    b.p_first = b.first / q, b.p_last = (b.first + b.count - 1) / q;
    b.q_origin = sh.flat ? 0 : b.first % q;
    return b;
  }
};

// Eight elements from patch element `at` on: as words where at is even, else an element, three
// words straddling X's words, and an element (the patch's rows and X's need not share alignment).
TESSERA_DEVICE inline void store_elements(std::uint16_t* patch, int at, uint4 const& v) {
  std::uint32_t const w[4] = {v.x, v.y, v.z, v.w};
  if (at % 2 == 0) {
    TESSERA_UNROLL
    for (int i = 0; i < 4; ++i) reinterpret_cast<std::uint32_t*>(patch + at)[i] = w[i];
  } else {
    patch[at] = std::uint16_t(w[0]);
    TESSERA_UNROLL
    for (int i = 0; i < 3; ++i) reinterpret_cast<std::uint32_t*>(patch + at + 1)[i] = __byte_perm(w[i], w[i + 1], 0x5432);
    patch[at + 7] = std::uint16_t(w[3] >> 16);
  }
}

// The patch of box b: `depth` planes of the rows the box reads (the rows past them are not read),
// `width` pixels each from q_origin's first input column, zeros outside the image. A warp a row:
// its in-image elements are contiguous in X (16-byte aligned), read as the aligned 16-byte vectors
// that cover them, a lane's (up to 4) all loaded before any is written. (Per-element loads and
// index arithmetic per vector were 60% of the kernel's instructions on the stem: ncu, H200.)
template <class E>
TESSERA_DEVICE void load_patch(Problem const& pr, SmallChannelShape const& sh, SmallBox const& b, E const* x, std::uint16_t* patch,
                               int warp, int lane) {
  constexpr int kUnroll = 4;
  int const c = pr.c, loaded = (b.p_last - b.p_first) * pr.stride[1] + (pr.r - 1) * pr.dilation[1] + 1, span = sh.width * c;
  int const d0 = input_coord(pr, 0, b.z, 0), h0 = input_coord(pr, 1, b.p_first, 0), w0 = input_coord(pr, 2, b.q_origin, 0);
  int const lo = min(span, max(0, -w0) * c), hi = max(lo, min(sh.width, pr.w - w0) * c);  // the elements inside the image
  std::int64_t const total = std::int64_t(pr.n) * pr.d * pr.h * pr.w * c;
  auto const* const in = reinterpret_cast<std::uint16_t const*>(x);
  for (int row = warp; row < sh.depth * loaded; row += kSmallWarps) {
    int const dz = row / loaded, ph = row % loaded, d = d0 + dz, h = h0 + ph, offset = (dz * sh.rows + ph) * span;
    bool const inside = unsigned(d) < unsigned(pr.d) && unsigned(h) < unsigned(pr.h);
    for (int e = lane; e < (inside ? lo : span); e += 32) patch[offset + e] = 0;  // the zeros
    if (!inside) continue;
    for (int e = hi + lane; e < span; e += 32) patch[offset + e] = 0;
    if (lo == hi) continue;  // (then the row's image run is empty: the patch is all padding)
    std::int64_t const first = (((std::int64_t(b.n) * pr.d + d) * pr.h + h) * pr.w + w0) * c;  // X's index of element 0
    std::int64_t const v0 = (first + lo) / 8;
    int const count = int((first + hi + 7) / 8 - v0), col0 = int(v0 * 8 - first);  // the vectors; vector 0's element in the row
    for (int i0 = lane; i0 < count; i0 += 32 * kUnroll) {
      uint4 v[kUnroll];
      TESSERA_UNROLL
      for (int u = 0; u < kUnroll; ++u) {
        std::int64_t const vector = v0 + i0 + 32 * u;
        v[u] = uint4{0, 0, 0, 0};
        if (i0 + 32 * u >= count) continue;
        if (vector * 8 + 8 <= total) {
          v[u] = __ldg(reinterpret_cast<uint4 const*>(in) + vector);
        } else {  // the tensor's last, partial vector
          std::uint16_t part[8];
          TESSERA_UNROLL
          for (int j = 0; j < 8; ++j) part[j] = vector * 8 + j < total ? in[vector * 8 + j] : std::uint16_t(0);
          std::memcpy(&v[u], part, sizeof(part));
        }
      }
      TESSERA_UNROLL
      for (int u = 0; u < kUnroll; ++u) {
        int const col = col0 + 8 * (i0 + 32 * u);
        if (i0 + 32 * u >= count) break;
        if (col >= lo && col + 8 <= hi) {
          store_elements(patch, offset + col, v[u]);
        } else {  // the run's ends
          std::uint32_t const w[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
          TESSERA_UNROLL
          for (int j = 0; j < 8; ++j)
            if (col + j >= lo && col + j < hi) patch[offset + col + j] = std::uint16_t(w[j / 2] >> (16 * (j % 2)));
        }
      }
    }
  }
}

// Eight outputs of type T to memory as one vector (16 bytes of 16-bit types; 32 of float, as two).
template <class T>
TESSERA_DEVICE void store_vector(T* to, T const (&v)[8]) {
  if constexpr (sizeof(v) % 16 == 0) {
    uint4 raw[sizeof(v) / 16];
    std::memcpy(raw, v, sizeof(v));
    TESSERA_UNROLL
    for (int i = 0; i < int(sizeof(v) / 16); ++i) reinterpret_cast<uint4*>(to)[i] = raw[i];
  } else {
    uint2 raw;
    std::memcpy(&raw, v, sizeof(v));
    *reinterpret_cast<uint2*>(to) = raw;
  }
}

// The MMA of E.
template <class E>
using SmallMma = std::conditional_t<std::is_same_v<E, half_t>, arch::Sm80_16x8x16_F32F16F16F32_TN, arch::Sm80_16x8x16_F32BF16BF16F32_TN>;

template <class E, class EY, class Epi, bool Pairs>
__global__ void __launch_bounds__(kSmallThreads, 4) small_channel_kernel(SmallChannelParams<E, EY, Epi> const p) {
  extern __shared__ uint4 small_smem[];
  Problem const& pr = p.problem;
  SmallChannelShape const& sh = p.shape;
  SmallChannelSmem<E> const s = SmallChannelSmem<E>::carve(sh, small_smem);
  int const tid = int(threadIdx.x), lane = tid % 32, warp = tid / 32, g = lane / 4, t4 = lane % 4;
  int const k0 = int(blockIdx.y) * sh.channels, k_count = min(sh.channels, pr.k - k0), n_tiles = k_count / 8;
  int const kk = sh.k_steps * 16, pitch = sh.filter_pitch(), c = pr.c;
  // Once a block: the filters, the column offsets and the chain's column vectors. Column j is
  // element e = (s, c) of filter row (t, r) = j / row_columns (e = j % row_columns; e = S C pads a
  // row to even), W's column (t R + r) S C + e, and reads the patch at ((t dilation_d rows +
  // r dilation_h) width + s dilation_w) C + c past its pixel's offset.
  int const rc = sh.row_columns, sc = pr.s * c, filter_rows = pr.t * pr.r;
  auto const real = [&](int j) { return j / rc < filter_rows && j % rc < sc; };
  // A warp a filter, its lanes along the columns: column j = lane + 32 i steps its (row, e) by
  // carries, not a division a column (the staging's divisions were a quarter of the kernel's
  // instructions at N = 32).
  for (int k = warp; k < sh.filter_channels(); k += kSmallWarps) {
    E const* const from = p.w + std::int64_t(k0 + k) * filter_rows * sc;
    int fr = lane / rc, e = lane % rc;
    for (int j = lane; j < kk; j += 32) {
      s.filter[k * pitch + j] = k < k_count && fr < filter_rows && e < sc ? from[fr * sc + e] : E(0.0f);
      for (e += 32; e >= rc; e -= rc) ++fr;
    }
  }
  for (int j = tid; j < kk; j += kSmallThreads) {
    int const t = j / rc / pr.r, r = j / rc % pr.r, e = j % rc;
    int const offset = ((t * pr.dilation[0] * sh.rows + r * pr.dilation[1]) * sh.width + e / c * pr.dilation[2]) * c + e % c;
    if (Pairs && j % 2 == 1)  // the pair's mask: its columns that are real
      s.column_offset[j] = int((real(j - 1) ? 0xFFFFu : 0u) | (real(j) ? 0xFFFF0000u : 0u));
    else
      s.column_offset[j] = real(j) ? 2 * offset : 0;
  }
  constexpr int vectors = epilogue::column_vectors_of<Epi>;
  if constexpr (vectors > 0) {
    for (int i = tid; i < vectors * sh.channels; i += kSmallThreads) {
      int const k = i % sh.channels;
      s.column_values[i] = k < k_count ? p.epilogue.column_value(i / sh.channels, k0 + k) : 0.0f;
    }
  }
  // The last k-step's columns past T R S C read masked zeros (their offsets are 0: in the patch).
  int const tail = (sh.k_steps - 1) * 16 + 2 * t4;  // (pairs: the table's masks)
  std::uint32_t const tail_mask[2] = {(tail < sh.columns ? 0xFFFFu : 0u) | (tail + 1 < sh.columns ? 0xFFFF0000u : 0u),
                                      (tail + 8 < sh.columns ? 0xFFFFu : 0u) | (tail + 9 < sh.columns ? 0xFFFF0000u : 0u)};
  std::uint32_t const filter_base = arch::smem_address(s.filter + ((lane / 16) * 8 + lane % 8) * pitch + ((lane / 8) % 2) * 8);
  float* const stage = s.stage + warp * 8 * sh.stage_pitch();
  int const q = pr.q(), pixels = pr.p() * q;
  for (int index = int(blockIdx.x); index < sh.boxes; index += int(gridDim.x)) {
    SmallBox const b = SmallBox::at(sh, pr, index);
    __syncthreads();  // the previous box's patch is read (and, the first time, the tables written)
    load_patch(pr, sh, b, p.x, s.patch, warp, lane);
    __syncthreads();
    int const m0 = warp * 32;
    if (m0 >= b.count) continue;
    // The patch addresses of the lane's rows (m-tile, g or g + 8); a column adds its byte offset.
    char const* row_at[2][2];
    TESSERA_UNROLL
    for (int i = 0; i < 4; ++i) {
      int const m = m0 + i * 8 + g, f = b.first + min(m, b.count - 1);
      int const offset = ((f / q - b.p_first) * pr.stride[1] * sh.width + (f % q - b.q_origin) * pr.stride[2]) * c;
      row_at[i / 2][i % 2] = reinterpret_cast<char const*>(s.patch + offset);
    }
    float acc[2][8][4] = {};
    // The k-steps over `tiles` n-tiles: all 8 (a compile-time count: no predicated MMA, each of
    // which costs a warp sync) or fewer (K's last chunk).
    auto const mainloop = [&](auto tiles) {
      for (int ks = 0; ks < sh.k_steps; ++ks) {
        int2 const col_lo = reinterpret_cast<int2 const*>(s.column_offset)[ks * 8 + t4];
        int2 const col_hi = reinterpret_cast<int2 const*>(s.column_offset)[ks * 8 + 4 + t4];
        std::uint32_t b_frag[8][2];
        TESSERA_UNROLL
        for (int i = 0; i < 4; ++i) {
          if (2 * i >= tiles) break;
          std::uint32_t r[4];
          arch::ldmatrix_x4(r, filter_base + 2 * (i * 16 * pitch + ks * 16));
          b_frag[2 * i][0] = r[0], b_frag[2 * i][1] = r[1], b_frag[2 * i + 1][0] = r[2], b_frag[2 * i + 1][1] = r[3];
        }
        bool const last = ks == sh.k_steps - 1;
        std::uint32_t const mask_lo = last ? tail_mask[0] : ~0u, mask_hi = last ? tail_mask[1] : ~0u;
        TESSERA_UNROLL
        for (int mt = 0; mt < 2; ++mt) {
          // Pairs: one aligned word and the pair's mask (col.y); else two elements.
          auto const pair = [](char const* row, int2 col, std::uint32_t mask) {
            if constexpr (Pairs) {
              return *reinterpret_cast<std::uint32_t const*>(row + col.x) & std::uint32_t(col.y);
            } else {
              std::uint32_t const lo = *reinterpret_cast<std::uint16_t const*>(row + col.x);
              std::uint32_t const hi = *reinterpret_cast<std::uint16_t const*>(row + col.y);
              return __byte_perm(lo, hi, 0x5410) & mask;
            }
          };
          std::uint32_t const a_frag[4] = {pair(row_at[mt][0], col_lo, mask_lo), pair(row_at[mt][1], col_lo, mask_lo),
                                           pair(row_at[mt][0], col_hi, mask_hi), pair(row_at[mt][1], col_hi, mask_hi)};
          TESSERA_UNROLL
          for (int nt = 0; nt < 8; ++nt)
            if (nt < tiles) SmallMma<E>::fma(acc[mt][nt], a_frag, b_frag[nt], acc[mt][nt]);
        }
      }
    };
    if (n_tiles == 8) mainloop(_8{});
    else mainloop(n_tiles);
    // The epilogue, 8 rows at a time: the accumulators (c_i at row g + 8 (i / 2), column
    // 2 t4 + i % 2 of each n-tile) to the warp's staging rows, read back 8 channels a lane.
    std::int64_t const plane_pixel = (std::int64_t(b.n) * pr.z() + b.z) * pixels + b.first;
    int const row_vectors = k_count / 8;
    TESSERA_UNROLL
    for (int half = 0; half < 4; ++half) {
      int const mt = half / 2, h = half % 2, m_base = m0 + mt * 16 + h * 8;
      if (m_base >= b.count) break;
      __syncwarp();
      TESSERA_UNROLL
      for (int nt = 0; nt < 8; ++nt)
        if (nt < n_tiles) *reinterpret_cast<float2*>(stage + g * sh.stage_pitch() + nt * 8 + 2 * t4) = make_float2(acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]);
      __syncwarp();
      for (int v = lane; v < 8 * row_vectors; v += 32) {
        int const row = v / row_vectors, col = (v % row_vectors) * 8;
        if (m_base + row >= b.count) continue;
        float4 const* const staged = reinterpret_cast<float4 const*>(stage + row * sh.stage_pitch() + col);  // 32-byte aligned
        float4 const lo = staged[0], hi = staged[1];
        float const from[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
        int const pixel = int(plane_pixel + m_base + row);
        EY out[8];
        TESSERA_UNROLL
        for (int j = 0; j < 8; ++j) {
          epilogue::Coord const at{pixel, k0 + col + j, 0};
          float value;
          if constexpr (vectors > 0) value = p.epilogue(from[j], at, epilogue::ColumnValues{s.column_values + col + j, sh.channels});
          else value = p.epilogue(from[j], at);
          out[j] = epilogue::convert_output<EY>(value);
        }
        store_vector(p.y + std::int64_t(pixel) * pr.k + k0 + col, out);
      }
    }
  }
}

}  // namespace detail

// The launch's shape for problem p (dense Fprop, C < 8, K a multiple of 8) on a device of
// `smem_limit` bytes of shared memory a block: the most channels a block (64, 32, 16, 8) whose
// filters, patch and staging fit; smem_bytes = 0 where none does (a huge filter or dilation).
template <class Epi>
inline detail::SmallChannelShape small_channel_shape(Problem const& p, int smem_limit) {
  using namespace detail;
  SmallChannelShape sh;
  auto const round16 = [](std::int64_t bytes) { return (bytes + 15) / 16 * 16; };
  // Pairs where a filter row's S C elements are contiguous in the patch (dilation 1 along W) and
  // every pixel's offset is even (stride C even): then A's column pairs (2 t4, 2 t4 + 1) are one
  // aligned word, once a filter row's columns are even (the stem's 21 padded to 22: 154 of 160).
  sh.pairs = p.dilation[2] == 1 && p.stride[2] * p.c % 2 == 0;
  sh.row_columns = sh.pairs ? (p.s * p.c + 1) / 2 * 2 : p.s * p.c;
  sh.columns = p.t * p.r * sh.row_columns;
  sh.k_steps = (sh.columns + 15) / 16;
  int const q = p.q(), filter_rows = (p.r - 1) * p.dilation[1] + 1, filter_width = (p.s - 1) * p.dilation[2] + 1;
  auto const even = [&](int width) { return sh.pairs && width * p.c % 2 != 0 ? width + 1 : width; };  // a row of even elements
  sh.depth = (p.t - 1) * p.dilation[0] + 1;
  // Flat: a run of kSmallBox pixels spans at most (kSmallBox - 1) / Q + 2 rows.
  int const span = std::min(p.p(), (kSmallBox - 1) / q + 2), full = even((q - 1) * p.stride[2] + filter_width);
  std::int64_t const flat_rows = std::int64_t(span - 1) * p.stride[1] + filter_rows;
  sh.flat = std::int64_t(sh.depth) * flat_rows * full * p.c * 2 <= kSmallFlatPatchBytes;
  if (sh.flat) {
    sh.box = kSmallBox, sh.rows = int(flat_rows), sh.width = full;
    sh.boxes_per_plane = (p.p() * q + kSmallBox - 1) / kSmallBox;
  } else {  // segments of a row, as even as they come
    int const segments = (q + kSmallBox - 1) / kSmallBox;
    sh.box = (q + segments - 1) / segments, sh.rows = filter_rows, sh.width = even((sh.box - 1) * p.stride[2] + filter_width);
    sh.boxes_per_plane = p.p() * segments;
  }
  sh.boxes = p.n * p.z() * sh.boxes_per_plane;  // at most the output pixels: below 2^31
  // (A pair's padding column may read the element past the patch: masked, but inside the block's memory.)
  std::int64_t const patch = round16(std::int64_t(sh.depth) * sh.rows * sh.width * p.c * 2 + 4);
  for (int channels = std::min(kSmallChannels, p.k); channels >= 8; channels = channels / 2 / 8 * 8) {
    sh.channels = channels;
    sh.filter_bytes = sh.filter_channels() * sh.filter_pitch() * 2;
    sh.table_bytes = sh.k_steps * 16 * 4;
    sh.values_bytes = int(round16(std::int64_t(epilogue::column_vectors_of<Epi>) * channels * 4));
    sh.stage_bytes = kSmallWarps * 8 * sh.stage_pitch() * 4;
    std::int64_t const total = std::int64_t(sh.filter_bytes) + sh.table_bytes + sh.values_bytes + sh.stage_bytes + patch;
    if (total <= smem_limit) {
      sh.patch_bytes = int(patch), sh.smem_bytes = int(total);
      return sh;
    }
  }
  sh.smem_bytes = 0;
  return sh;
}

// Whether the small-channel kernel takes p (dense Fprop, C < 8) on the current device: K a multiple
// of 8 (one MMA's columns), x 16-byte aligned, y aligned for 8-output vectors, the shared memory enough.
template <class E, class EY, class Epi>
Status small_channel_can_implement(Problem const& p, void const* x, void const* y) {
  static_assert(std::is_same_v<E, bfloat16_t> || std::is_same_v<E, half_t>,
                "conv::small_channel_can_implement: 16-bit inputs (bfloat16_t, half_t); other types pad their channels to 8");
  auto const s = [](std::int64_t v) { return std::to_string(v); };
  if (p.k % 8 != 0)
    return Status::misaligned("conv::Conv: the small-channel kernel writes 8 output channels a vector; K = " + s(p.k) +
                              " is not a multiple of 8: pad the filters");
  if (reinterpret_cast<std::uintptr_t>(x) % 16 != 0 || reinterpret_cast<std::uintptr_t>(y) % std::min<std::size_t>(16, 8 * sizeof(EY)) != 0)
    return Status::misaligned("conv::Conv: the small-channel kernel reads x as 16-byte vectors and stores 8 outputs a vector; x "
                              "must be 16-byte aligned and y " + s(std::min<std::int64_t>(16, 8 * sizeof(EY))) +
                              "-byte aligned: allocate with cudaMalloc");
  int device = 0, major = 0;
  if (runtime::current_device(device) != runtime::kSuccess || (major = runtime::compute_capability_major(device)) == 0)
    return Status::device_error("conv::Conv: no CUDA device is available; run on a machine with an NVIDIA GPU");
  if (major < 8) return Status::not_supported("conv::Conv: the small-channel kernel (mma.sync) needs compute capability 8.0 or newer");
  int const limit = runtime::max_shared_memory_per_block(device);
  if (small_channel_shape<Epi>(p, limit).smem_bytes == 0) {
    detail::SmallChannelShape const sh = small_channel_shape<Epi>(p, 1 << 30);  // what the smallest block would take
    return Status::not_supported("conv::Conv: the small-channel kernel's block needs " + s(sh.smem_bytes) +
                                 " bytes of shared memory (the filters' " + s(sh.columns) + " columns and an input patch of " +
                                 s(sh.patch_bytes) + " bytes), more than the device's " + s(limit) +
                                 "; use a smaller filter, dilation or stride");
  }
  return Status::success();
}

// Runs the small-channel kernel (small_channel_can_implement passed): y = chain(conv(x, w)).
template <class E, class EY, class Epi>
Status run_small_channel(Problem const& p, E const* x, E const* w, EY* y, Epi const& epi, cudaStream_t stream) {
  int device = 0;
  if (runtime::current_device(device) != runtime::kSuccess) return Status::device_error("conv::Conv: no CUDA device is available");
  detail::SmallChannelParams<E, EY, Epi> params{p, x, w, y, epi, small_channel_shape<Epi>(p, runtime::max_shared_memory_per_block(device))};
  detail::SmallChannelShape const& sh = params.shape;
  auto const kernel = sh.pairs ? detail::small_channel_kernel<E, EY, Epi, true> : detail::small_channel_kernel<E, EY, Epi, false>;
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, sh.smem_bytes);
  int resident = 0;  // blocks a multiprocessor holds: one wave of them walks the boxes
  if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, detail::kSmallThreads, sh.smem_bytes);
  if (err == cudaSuccess) {
    int const chunks = (p.k + sh.channels - 1) / sh.channels;
    std::int64_t const wave = std::int64_t(std::max(1, runtime::multiprocessors(device))) * std::max(1, resident);
    dim3 const grid(unsigned(std::clamp<std::int64_t>(wave / chunks, 1, sh.boxes)), unsigned(chunks));
    kernel<<<grid, detail::kSmallThreads, sh.smem_bytes, stream>>>(params);
    err = cudaGetLastError();
  }
  if (err != cudaSuccess) return Status::device_error(std::string("conv::Conv: the small-channel launch failed: ") + cudaGetErrorString(err));
  return Status::success();
}

}  // namespace tessera::conv
