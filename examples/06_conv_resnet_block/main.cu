// 06_conv_resnet_block: a ResNet block's convolution with its epilogue fused, in one kernel:
// Y = ReLU(conv3x3(X, W) + bias + R), NHWC bf16, where R (the block's shortcut) has Y's shape.
//
// conv::Config names the convolution as gemm::Config names a GEMM: types, direction, tiles and
// the epilogue chain. On Hopper (a binary with sm_90a code) the Warpgroups Config runs the GEMM's
// sm90 kernel with a TMA im2col loader; elsewhere the Warps Config runs the sm80 kernel with a
// cp.async gather loader. The chain is the GEMM's, unchanged; it sees each output at
// Coord{row = output pixel (n, p, q) flattened, col = output channel}, so the residual is a
// row-major matrix of K columns and the bias is per column.
//
// It checks N = 2, 14 x 14, 64 -> 72 channels against a host reference, then times the layer of
// ResNet-50's conv2_x (N = 32, 56 x 56, 64 -> 64) and prints TFLOP/s.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../common/example_util.hpp"
#include "tessera/conv/conv.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

using namespace tessera;

using Epilogue = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>,  // + bias[k]
                                 epilogue::ResidualAdd<bfloat16_t>,                 // + R[n, p, q, k]
                                 epilogue::Relu>;
using Hopper = conv::Config<arch::Sm90, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Fprop, gemm::BlockTile<128, 128, 64>,
                            gemm::Warpgroups<2>, gemm::Stages<4>, Epilogue>;
using Ampere = conv::Config<arch::Sm80, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Fprop, gemm::BlockTile<128, 128, 32>,
                            gemm::Warps<2, 2>, gemm::Stages<3>, Epilogue>;

namespace {

conv::Problem layer(int n, int hw, int c, int k) {
  conv::Problem p;
  p.n = n, p.h = p.w = hw, p.c = c, p.k = k, p.r = p.s = 3;
  p.pad_before = p.pad_after = {0, 1, 1};
  return p;
}

struct Block {
  conv::Problem p;
  std::vector<bfloat16_t> x, w, bias, r;
  bfloat16_t *d_x, *d_w, *d_bias, *d_r, *d_y;
  explicit Block(conv::Problem const& problem)
      : p(problem),
        x(example::random_bf16(std::size_t(p.input_elements()), 1)),
        w(example::random_bf16(std::size_t(p.filter_elements()), 2)),
        bias(example::random_bf16(std::size_t(p.k), 3)),
        r(example::random_bf16(std::size_t(p.output_elements()), 4)) {
    d_x = example::to_device(x);
    d_w = example::to_device(w);
    d_bias = example::to_device(bias);
    d_r = example::to_device(r);
    d_y = example::device_array<bfloat16_t>(std::size_t(p.output_elements()));
  }
  ~Block() {
    for (void* q : {(void*)d_x, (void*)d_w, (void*)d_bias, (void*)d_r, (void*)d_y}) example::gpu_free(q);
  }
  template <class Cfg>
  typename conv::Conv<Cfg>::Arguments arguments() const {
    typename conv::Conv<Cfg>::Arguments a;
    a.problem = p;
    a.x = d_x;
    a.w = d_w;
    a.y = d_y;
    a.epilogue = Epilogue::make(d_bias, epilogue::MatrixRef<bfloat16_t>::row_major(d_r, p.k));
    return a;
  }
  // Y at output pixel m (flattened n, p, q) and channel k, in double.
  double want(int m, int k) const {
    conv::Pixel const o = conv::output_pixel(p, m);
    double acc = 0;
    for (int rr = 0; rr < p.r; ++rr)
      for (int s = 0; s < p.s; ++s) {
        int const h = conv::input_coord(p, 1, o.at[1], rr), ww = conv::input_coord(p, 2, o.at[2], s);
        if (h < 0 || h >= p.h || ww < 0 || ww >= p.w) continue;
        for (int c = 0; c < p.c; ++c)
          acc += double(float(x[std::size_t(((std::int64_t(o.n) * p.h + h) * p.w + ww) * p.c + c)])) *
                 double(float(w[std::size_t(((std::int64_t(k) * p.r + rr) * p.s + s) * p.c + c)]));
      }
    return std::max(0.0, acc + double(float(bias[std::size_t(k)])) + double(float(r[std::size_t(m) * p.k + k])));
  }
};

// Checks, then times, the block with Config Cfg; returns the exit status.
template <class Cfg>
int run(char const* kernel) {
  Block const small(layer(2, 14, 64, 72));
  auto args = small.template arguments<Cfg>();
  if (Status const s = conv::Conv<Cfg>{}.run(args); !s) {
    std::printf("%s\n", s.message().c_str());
    return 1;
  }
  EXAMPLE_CUDA(example::gpu_synchronize());
  int const m = int(small.p.n * small.p.p() * small.p.q());
  int const status = example::compare(kernel, example::to_host(small.d_y, std::size_t(small.p.output_elements())), m, small.p.k,
                                      [&](int i, int j) { return small.want(i, j); });
  if (status != 0) return status;
  Block const big(layer(32, 56, 64, 64));
  auto const timed = big.template arguments<Cfg>();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int i = 0; i < 23; ++i) {
    cudaEventRecord(start);
    (void)conv::Conv<Cfg>{}.run(timed);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (i >= 3) ms.push_back(t);
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  double const us = ms[ms.size() / 2] * 1e3;
  std::printf("06_conv_resnet_block: %s, N = 32, 56 x 56, 64 -> 64, 3x3 with bias + residual + ReLU: %.1f us, %.0f TFLOP/s (median of 20)\n",
              kernel, us, 2.0 * double(big.p.macs()) / (us * 1e6));
  return 0;
}

}  // namespace

int main() {
  if (!example::have_gpu()) return 0;
  typename conv::Conv<Hopper>::Arguments probe;
  Block const tiny(layer(1, 8, 64, 64));
  probe = tiny.arguments<Hopper>();
  if (Status const s = conv::Conv<Hopper>::can_implement(probe); s) return run<Hopper>("sm90 kernel (TMA im2col + wgmma)");
  else std::printf("the Hopper kernel does not run here (%s); the sm80 kernel runs instead\n", s.message().c_str());
  return run<Ampere>("sm80 kernel (cp.async gather + mma.sync)");
}
