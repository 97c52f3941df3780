// The implicit GEMM of each convolution direction: per group, D (M x N, row-major) = A (M x K)
// B (K x N), with A and B gathered from the tensors and D one of them, so that the GEMM's kernel
// pieces (gemm/sm90, gemm/sm80) run a convolution with only the operand loader changed:
//
//   direction  M             N            K             A                 B                 D
//   Fprop      N Z P Q       K / g        T R S C / g   X, gathered       W (K-major rows)  Y
//   Dgrad      N D H W       C / g        T R S K / g   dY, gathered      W (N-major rows)  dX
//   Wgrad      K / g         T R S C / g  N Z P Q       dY (M-major)      X, gathered       dW
//
// Rows and columns decompose row-major, the last coordinate fastest: a pixel index into
// (n, z, p, q) or (n, d, h, w), a filter index into (t, r, s, channel) with the channel fastest
// (the KTRSC filter's own order, so Fprop's B rows are contiguous). A tap (t, r, s) joins an
// output pixel to the input pixel d = z stride - pad_before + t dilation (each dimension); Dgrad
// runs it backwards, z = (d + pad_before - t dilation) / stride where that divides and lands in
// range, which is how a strided dgrad is done here: the terms whose division leaves a remainder
// are zero (the im2col loader skips what it can of them; see docs/conv.md).
//
// The Fprop loader walks K in k-tiles of BK channels of one tap (k_tile), so that each k-tile is
// one im2col box of the input: all of this is constexpr and host-tested against a direct
// convolution (test/unit/conv/test_implicit_gemm.cpp).
#pragma once

#include <cstdint>

#include "tessera/conv/problem.hpp"
#include "tessera/core/config.hpp"

namespace tessera::conv {

// The per-group GEMM of a direction (M and K as 64-bit: N Z P Q can pass 2^31 before a tensor does).
struct GemmShape {
  std::int64_t m, n, k;
};

TESSERA_HD constexpr GemmShape gemm_shape(Problem const& p, Direction dir) {
  std::int64_t const taps = std::int64_t(p.t) * p.r * p.s, out_pixels = std::int64_t(p.n) * p.z() * p.p() * p.q(),
                     in_pixels = std::int64_t(p.n) * p.d * p.h * p.w;
  switch (dir) {
    case Direction::kFprop: return {out_pixels, p.k_per_group(), taps * p.c_per_group()};
    case Direction::kDgrad: return {in_pixels, p.c_per_group(), taps * p.k_per_group()};
    case Direction::kWgrad: return {p.k_per_group(), taps * p.c_per_group(), out_pixels};
  }
  return {0, 0, 0};
}

// A pixel: image n and its three spatial coordinates (output: z, p, q; input: d, h, w).
struct Pixel {
  int n;
  Array<int, 3> at;
};
// A filter position: the tap (t, r, s) and a channel of the group (input channel c for Fprop and
// Wgrad, output channel k for Dgrad).
struct Tap {
  Array<int, 3> at;
  int channel;
};

// Pixel `index` (row-major over n and the extents).
TESSERA_HD constexpr Pixel pixel(std::int64_t index, int e0, int e1, int e2) {
  Pixel x{};
  x.at[2] = int(index % e2);
  index /= e2;
  x.at[1] = int(index % e1);
  index /= e1;
  x.at[0] = int(index % e0);
  x.n = int(index / e0);
  return x;
}
TESSERA_HD constexpr Pixel output_pixel(Problem const& p, std::int64_t index) { return pixel(index, p.z(), p.p(), p.q()); }
TESSERA_HD constexpr Pixel input_pixel(Problem const& p, std::int64_t index) { return pixel(index, p.d, p.h, p.w); }

// A pointwise layer: a 1 x 1 filter at unit stride without padding, whose im2col matrix is the
// activation itself (pixels x channels).
TESSERA_HD constexpr bool is_pointwise(Problem const& p) {
  bool unit = p.t * p.r * p.s == 1;
  for (int dim = 0; dim < 3; ++dim) unit = unit && p.stride[dim] == 1 && p.pad_before[dim] == 0 && p.pad_after[dim] == 0;
  return unit;
}

// Filter position `index` over (t, r, s, channel), `channels` per tap.
TESSERA_HD constexpr Tap tap(Problem const& p, std::int64_t index, int channels) {
  Tap x{};
  x.channel = int(index % channels);
  index /= channels;
  x.at[2] = int(index % p.s);
  index /= p.s;
  x.at[1] = int(index % p.r);
  x.at[0] = int(index / p.r);
  return x;
}

// The input coordinate that output coordinate o reads through tap position f of dimension dim;
// in the image when 0 <= result < input_extent(dim) (else the term is padding: zero).
TESSERA_HD constexpr int input_coord(Problem const& p, int dim, int o, int f) {
  return o * p.stride[dim] - p.pad_before[dim] + f * p.dilation[dim];
}
// Dgrad's way back: the output coordinate that reads input coordinate i through tap position f,
// or -1 where none does (the stride does not divide, or it falls outside the output).
TESSERA_HD constexpr int output_coord(Problem const& p, int dim, int i, int f) {
  int const x = i + p.pad_before[dim] - f * p.dilation[dim];
  if (x < 0 || x % p.stride[dim] != 0) return -1;
  int const o = x / p.stride[dim];
  return o < p.output_extent(dim) ? o : -1;
}

// The k-tiles of a GEMM whose K runs over (tap, channel): each BK channels (of `channels` a tap,
// the last block of a tap partial) of one tap, channel blocks fastest. k-tile kt covers channels
// c0 .. c0 + BK - 1 (those below `channels`) of tap (t, r, s). Fprop's channels are the group's
// input channels (C / g, the default), Dgrad's the group's filters (K / g).
struct KTile {
  Array<int, 3> at;
  int c0;
};
TESSERA_HD constexpr int channel_blocks(Problem const& p, int bk) { return (p.c_per_group() + bk - 1) / bk; }
TESSERA_HD constexpr int k_tiles(Problem const& p, int bk) { return p.t * p.r * p.s * channel_blocks(p, bk); }
TESSERA_HD constexpr KTile k_tile(Problem const& p, int bk, int kt, int channels) {
  Tap const x = tap(p, kt, (channels + bk - 1) / bk);
  return KTile{x.at, x.channel * bk};
}
TESSERA_HD constexpr KTile k_tile(Problem const& p, int bk, int kt) { return k_tile(p, bk, kt, p.c_per_group()); }

// ---- the operands, element by element (host reference and tests; the loaders gather tiles) ----

// Packed tensors of one problem: X (N D H W C), W (K T R S C/g), Y (N Z P Q K); Dgrad reads Y as
// dY and writes X as dX, Wgrad reads Y and X and writes W.
template <class T>
struct Tensors {
  T* x;
  T* w;
  T* y;
};

namespace detail {
TESSERA_HD constexpr std::int64_t x_offset(Problem const& p, Pixel const& i, int c) {
  return (((std::int64_t(i.n) * p.d + i.at[0]) * p.h + i.at[1]) * p.w + i.at[2]) * p.c + c;
}
TESSERA_HD constexpr std::int64_t y_offset(Problem const& p, Pixel const& o, int k) {
  return (((std::int64_t(o.n) * p.z() + o.at[0]) * p.p() + o.at[1]) * p.q() + o.at[2]) * p.k + k;
}
TESSERA_HD constexpr std::int64_t w_offset(Problem const& p, int k, Tap const& f) {
  return (((std::int64_t(k) * p.t + f.at[0]) * p.r + f.at[1]) * p.s + f.at[2]) * p.c_per_group() + f.channel;
}
// The input pixel output pixel o reads through f, or false where that is padding.
TESSERA_HD constexpr bool gather_input(Problem const& p, Pixel const& o, Tap const& f, Pixel& i) {
  i.n = o.n;
  for (int dim = 0; dim < 3; ++dim) {
    i.at[dim] = input_coord(p, dim, o.at[dim], f.at[dim]);
    if (i.at[dim] < 0 || i.at[dim] >= p.input_extent(dim)) return false;
  }
  return true;
}
// The output pixel that reads input pixel i through f, or false where none does (Dgrad).
TESSERA_HD constexpr bool gather_output(Problem const& p, Pixel const& i, Tap const& f, Pixel& o) {
  o.n = i.n;
  for (int dim = 0; dim < 3; ++dim)
    if ((o.at[dim] = output_coord(p, dim, i.at[dim], f.at[dim])) < 0) return false;
  return true;
}
}  // namespace detail

// A(row, col) of group g's GEMM in direction dir (zero for padding), as the loaders gather it.
template <class T>
constexpr T a_element(Problem const& p, Direction dir, Tensors<T> const& t, int g, std::int64_t row, std::int64_t col) {
  switch (dir) {
    case Direction::kFprop: {
      Pixel i{};
      Tap const f = tap(p, col, p.c_per_group());
      return detail::gather_input(p, output_pixel(p, row), f, i) ? t.x[detail::x_offset(p, i, g * p.c_per_group() + f.channel)] : T(0);
    }
    case Direction::kDgrad: {
      Pixel o{};
      Tap const f = tap(p, col, p.k_per_group());
      return detail::gather_output(p, input_pixel(p, row), f, o) ? t.y[detail::y_offset(p, o, g * p.k_per_group() + f.channel)] : T(0);
    }
    case Direction::kWgrad: return t.y[detail::y_offset(p, output_pixel(p, col), g * p.k_per_group() + int(row))];
  }
  return T(0);
}

// B(row, col) of group g's GEMM in direction dir.
template <class T>
constexpr T b_element(Problem const& p, Direction dir, Tensors<T> const& t, int g, std::int64_t row, std::int64_t col) {
  switch (dir) {
    case Direction::kFprop: return t.w[detail::w_offset(p, g * p.k_per_group() + int(col), tap(p, row, p.c_per_group()))];
    case Direction::kDgrad: {
      Tap const f = tap(p, row, p.k_per_group());  // (t, r, s, k of the group)
      return t.w[detail::w_offset(p, g * p.k_per_group() + f.channel, Tap{f.at, int(col)})];
    }
    case Direction::kWgrad: {
      Pixel i{};
      Tap const f = tap(p, col, p.c_per_group());
      return detail::gather_input(p, output_pixel(p, row), f, i) ? t.x[detail::x_offset(p, i, g * p.c_per_group() + f.channel)] : T(0);
    }
  }
  return T(0);
}

// Where D(row, col) of group g's GEMM lives in the output tensor of direction dir (Y, dX or dW).
TESSERA_HD constexpr std::int64_t d_offset(Problem const& p, Direction dir, int g, std::int64_t row, std::int64_t col) {
  switch (dir) {
    case Direction::kFprop: return detail::y_offset(p, output_pixel(p, row), g * p.k_per_group() + int(col));
    case Direction::kDgrad: return detail::x_offset(p, input_pixel(p, row), g * p.c_per_group() + int(col));
    case Direction::kWgrad: return detail::w_offset(p, g * p.k_per_group() + int(row), tap(p, col, p.c_per_group()));
  }
  return 0;
}

}  // namespace tessera::conv
