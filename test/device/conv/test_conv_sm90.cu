// conv::Conv, Fprop on the Hopper kernel: the GEMM's sm90 Kernel, unchanged, with the TMA im2col
// loader (conv/sm90/im2col_loader.hpp), against a direct convolution on the host
// (conv_check.hpp). Shapes: 1-D, 2-D and 3-D maps (TMA ranks 3, 4, 5); strides 2 and 3; dilation
// 2; padding wider than half the filter; C / groups a multiple of 64; K not a multiple of the
// tile; groups; split-K; bias + ReLU fused; several tiles per block (persistent).
#include "conv_check.hpp"

using namespace tessera;

namespace {

using namespace tessera::test::conv_check;

template <class E, class Epi = epilogue::Identity, int BN = 128>
using Sm90Fprop = conv::Config<arch::Sm90, E, E, E, float, conv::Fprop, gemm::BlockTile<128, BN, 64>, gemm::Warpgroups<2>,
                               gemm::Stages<4>, Epi>;

}  // namespace

TEST_CASE("conv Fprop sm90: TMA im2col through the GEMM's kernel", "[gpu][conv][sm90]") {
  test::require_gpu();
  using Cfg = Sm90Fprop<bfloat16_t>;
  CHECK(run_conv<Cfg>(problem2d(2, 7, 5, 64, 40, 3, 3, 1, 1, 1)) <= 1.0);       // 3x3 pad 1
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 128, 72, 1, 1, 0, 0, 2)) <= 1.0);    // 1x1 stride 2
  CHECK(run_conv<Cfg>(problem2d(1, 13, 17, 64, 64, 5, 5, 2, 2, 3)) <= 1.0);     // 5x5 stride 3
  CHECK(run_conv<Cfg>(problem2d(1, 9, 10, 64, 24, 3, 2, 4, 3, 1, 2)) <= 1.0);   // dilation 2, wide padding
  CHECK(run_conv<Cfg>(problem2d(8, 28, 28, 128, 136, 3, 3, 1, 1, 1)) <= 1.0);   // several tiles a block
  CHECK(run_conv<Cfg>(problem2d(2, 8, 9, 128, 48, 3, 3, 1, 1, 1, 1, 2)) <= 1.0);  // groups = 2
  CHECK(run_conv<Cfg>(problem2d(1, 7, 7, 512, 64, 3, 3, 1, 1, 1), 3) <= 1.0);   // split-K
  CHECK(run_conv<Sm90Fprop<half_t, epilogue::Identity, 256>>(problem2d(2, 14, 14, 64, 256, 3, 3, 1, 1, 1)) <= 1.0);
  conv::Problem p;
  p.n = 3, p.w = 37, p.c = 64, p.k = 48, p.s = 5, p.pad_before = {0, 0, 2}, p.pad_after = {0, 0, 1}, p.stride = {1, 1, 2};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 1-D: rank 3
  p = conv::Problem{};
  p.n = 2, p.d = 5, p.h = 6, p.w = 7, p.c = 64, p.k = 40, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1}, p.stride = {2, 1, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 3-D: rank 5
  using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::Relu>;
  CHECK(run_conv<Sm90Fprop<bfloat16_t, Epi>>(problem2d(2, 14, 14, 64, 72, 3, 3, 1, 1, 1)) <= 1.0);
}
