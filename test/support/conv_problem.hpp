// A 2-D convolution problem in one call, for the tests (1-D and 3-D ones adjust the result):
// N images of H x W pixels with C channels, K filters of R x S, padding pad_h / pad_w on both
// sides, one stride and one dilation in both dimensions, groups.
#pragma once

#include "tessera/conv/problem.hpp"

namespace tessera::test {

inline conv::Problem problem2d(int n, int h, int w, int c, int k, int r, int s, int pad_h, int pad_w, int stride, int dilation = 1,
                               int groups = 1) {
  conv::Problem p;
  p.n = n, p.h = h, p.w = w, p.c = c, p.k = k, p.r = r, p.s = s, p.groups = groups;
  p.pad_before = p.pad_after = {0, pad_h, pad_w};
  p.stride = {1, stride, stride};
  p.dilation = {1, dilation, dilation};
  return p;
}

}  // namespace tessera::test
