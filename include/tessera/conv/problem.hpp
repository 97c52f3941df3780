// A convolution problem: N images of D x H x W pixels with C channels (NDHWC), K filters of
// T x R x S taps over C / groups channels (KTRSC), zero padding before and after each spatial
// dimension, stride and dilation per dimension, groups. 1-D and 2-D problems leave the leading
// extents 1 (D = T = 1, and H = R = 1 for 1-D) with no padding there.
//
//   conv::Problem p;                    // a ResNet 3x3 layer: 32 x 56 x 56 x 64 -> 64
//   p.n = 32; p.h = p.w = 56; p.c = p.k = 64; p.r = p.s = 3;
//   p.pad_before = p.pad_after = {0, 1, 1};
//   p.output_extent(1) == 56;           // P (dimension 0: Z, 1: P, 2: Q)
//   if (Status s = conv::check(p); !s) ...   // what is wrong and how to fix it
//
// The three directions (conv::Fprop, conv::Dgrad, conv::Wgrad) compute, in its terms,
//   Fprop: Y[n, z, p, q, k]   = sum over t, r, s, c of X[n, d, h, w, g c] W[k, t, r, s, c]
//   Dgrad: dX[n, d, h, w, c]  = sum over k, t, r, s of dY[n, z, p, q, k] W[k, t, r, s, c]
//   Wgrad: dW[k, t, r, s, c]  = sum over n, z, p, q of dY[n, z, p, q, k] X[n, d, h, w, g c]
// where d = z stride - pad_before + t dilation (likewise h, w), g the group of k (channels of
// group g: g C / groups .. + C / groups - 1), and terms with d, h or w outside the image are 0.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/core/array.hpp"
#include "tessera/core/config.hpp"
#include "tessera/core/status.hpp"

namespace tessera::conv {

// The directions, as tags for conv::Config and as values.
struct Fprop {};
struct Dgrad {};
struct Wgrad {};
enum class Direction { kFprop, kDgrad, kWgrad };

struct Problem {
  int n = 1;
  int d = 1, h = 1, w = 1;  // the input's spatial extents
  int c = 0;                // input channels, all groups
  int k = 0;                // output channels (filters), all groups
  int t = 1, r = 1, s = 1;  // the filter's extents
  // Per spatial dimension (0: depth, 1: height, 2: width).
  Array<int, 3> pad_before{0, 0, 0}, pad_after{0, 0, 0};
  Array<int, 3> stride{1, 1, 1}, dilation{1, 1, 1};
  int groups = 1;

  TESSERA_HD constexpr int input_extent(int dim) const { return dim == 0 ? d : dim == 1 ? h : w; }
  TESSERA_HD constexpr int filter_extent(int dim) const { return dim == 0 ? t : dim == 1 ? r : s; }
  // Z, P, Q: (extent + padding - dilated filter) / stride + 1 (0 where the filter does not fit).
  TESSERA_HD constexpr int output_extent(int dim) const {
    int const span = input_extent(dim) + pad_before[dim] + pad_after[dim] - dilation[dim] * (filter_extent(dim) - 1) - 1;
    return span < 0 ? 0 : span / stride[dim] + 1;
  }
  TESSERA_HD constexpr int z() const { return output_extent(0); }
  TESSERA_HD constexpr int p() const { return output_extent(1); }
  TESSERA_HD constexpr int q() const { return output_extent(2); }
  TESSERA_HD constexpr int c_per_group() const { return groups > 0 ? c / groups : 0; }
  TESSERA_HD constexpr int k_per_group() const { return groups > 0 ? k / groups : 0; }

  // Element counts of the tensors (NDHWC activations, KTRSC filters).
  constexpr std::int64_t input_elements() const { return std::int64_t(n) * d * h * w * c; }
  constexpr std::int64_t output_elements() const { return std::int64_t(n) * z() * p() * q() * k; }
  constexpr std::int64_t filter_elements() const { return std::int64_t(k) * t * r * s * c_per_group(); }
  // Multiply-adds of one direction (each direction makes the same number).
  constexpr std::int64_t macs() const { return output_elements() * t * r * s * c_per_group(); }
};

// Ok, or what is wrong with the problem and how to fix it.
inline Status check(Problem const& p) {
  auto const bad = [](std::string what) { return Status::invalid_argument("conv::Problem: " + what); };
  auto const s = [](auto v) { return std::to_string(v); };
  if (p.n < 1 || p.d < 1 || p.h < 1 || p.w < 1 || p.c < 1 || p.k < 1)
    return bad("N, D, H, W, C and K must be at least 1 (N=" + s(p.n) + " D=" + s(p.d) + " H=" + s(p.h) + " W=" + s(p.w) +
               " C=" + s(p.c) + " K=" + s(p.k) + "); a 2-D problem has D = 1, a 1-D one D = H = 1");
  if (p.t < 1 || p.r < 1 || p.s < 1) return bad("the filter's T, R and S must be at least 1; a 2-D filter has T = 1");
  if (p.groups < 1 || p.c % p.groups != 0 || p.k % p.groups != 0)
    return bad("groups = " + s(p.groups) + " must divide C = " + s(p.c) + " and K = " + s(p.k) + "; use groups = 1 for a dense convolution");
  char const* const names[3] = {"depth", "height", "width"};
  for (int dim = 0; dim < 3; ++dim) {
    std::string const at = std::string(" in ") + names[dim];
    if (p.stride[dim] < 1 || p.dilation[dim] < 1) return bad("stride and dilation must be at least 1" + at);
    if (p.pad_before[dim] < 0 || p.pad_after[dim] < 0) return bad("padding must not be negative" + at);
    int const dilated = p.dilation[dim] * (p.filter_extent(dim) - 1) + 1;
    if (p.output_extent(dim) < 1)
      return bad("the dilated filter (" + s(dilated) + ")" + at + " does not fit the padded input (" +
                 s(p.input_extent(dim) + p.pad_before[dim] + p.pad_after[dim]) + "); pad more or use a smaller filter or dilation");
  }
  if (p.output_elements() > (std::int64_t(1) << 31) - 1 || p.input_elements() > (std::int64_t(1) << 31) - 1)
    return Status::not_supported("conv::Problem: a tensor of more than 2^31 - 1 elements; split the batch (N) into parts");
  return Status::success();
}

}  // namespace tessera::conv
