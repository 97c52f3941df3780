// conv::Conv on the Hopper kernel: the GEMM's sm90 Kernel, unchanged, with the TMA im2col loaders
// (conv/sm90/im2col_loader.hpp), against a direct convolution on the host (conv_check.hpp).
// Fprop, Dgrad (unit stride: the flipped filter over dY) and Wgrad (X im2col as B, split-K over
// the pixels); 1 x 1 unit-stride layers read the activation as a plain matrix (tiled loads). Shapes: 1-D, 2-D and 3-D maps (TMA ranks 3, 4, 5); strides 2 and 3; dilation 2;
// padding wider than half the filter (and, for Dgrad, wider than the dilated filter); channels
// not multiples of the tile; groups; split-K (given and automatic); bias + ReLU fused; several
// tiles per block (persistent); the refusals with their fixes.
#include "conv_check.hpp"

using namespace tessera;

namespace {

using namespace tessera::test::conv_check;

template <class E, class Epi = epilogue::Identity, int BN = 128>
using Sm90Fprop = conv::Config<arch::Sm90, E, E, E, float, conv::Fprop, gemm::BlockTile<128, BN, 64>, gemm::Warpgroups<2>,
                               gemm::Stages<4>, Epi>;
template <class E, class Dir, int BM = 128, int BN = 128>
using Sm90Conv = conv::Config<arch::Sm90, E, E, E, float, Dir, gemm::BlockTile<BM, BN, 64>, gemm::Warpgroups<BM / 64>, gemm::Stages<4>>;

}  // namespace

TEST_CASE("conv Fprop sm90: TMA im2col through the GEMM's kernel", "[gpu][conv][sm90]") {
  test::require_gpu();
  using Cfg = Sm90Fprop<bfloat16_t>;
  CHECK(run_conv<Cfg>(problem2d(2, 7, 5, 64, 40, 3, 3, 1, 1, 1)) <= 1.0);       // 3x3 pad 1
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 128, 72, 1, 1, 0, 0, 2)) <= 1.0);    // 1x1 stride 2
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 128, 72, 1, 1, 0, 0, 1)) <= 1.0);    // 1x1 unit stride: a plain matrix, tiled loads
  CHECK(run_conv<Cfg>(problem2d(2, 9, 7, 256, 96, 1, 1, 0, 0, 1, 1, 2)) <= 1.0);  // the same, groups = 2
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
  // Grouped: the bias is per output channel across the groups, staged (interior tiles) or not.
  CHECK(run_conv<Sm90Fprop<bfloat16_t, Epi>>(problem2d(2, 14, 14, 128, 256, 3, 3, 1, 1, 1, 1, 2)) <= 1.0);
  CHECK(run_conv<Sm90Fprop<bfloat16_t, Epi>>(problem2d(1, 9, 7, 256, 96, 3, 3, 1, 1, 1, 1, 4), 2) <= 1.0);  // and split-K
}

TEST_CASE("conv Fprop sm90: small-channel inputs (C = 1 to 7) on the direct kernel, and 1 x 1 layers of any C", "[gpu][conv][sm90]") {
  test::require_gpu();
  using Cfg = Sm90Fprop<bfloat16_t>;
  // The ResNet stem's shape (147 columns in 10 k-steps), without a workspace.
  conv::Problem const stem = problem2d(2, 23, 21, 3, 64, 7, 7, 3, 3, 2);
  typename conv::Conv<Cfg>::Arguments args;
  args.problem = stem;
  CHECK(conv::Conv<Cfg>::workspace_size(args) == 0);
  CHECK(run_conv<Cfg>(stem) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(3, 9, 10, 1, 24, 3, 3, 1, 1, 1)) <= 1.0);   // grayscale: 9 columns, one partial k-step; K = 24
  CHECK(run_conv<Cfg>(problem2d(1, 17, 13, 4, 40, 5, 5, 2, 2, 2)) <= 1.0);   // C = 4, K = 40
  CHECK(run_conv<Cfg>(problem2d(2, 11, 12, 7, 136, 3, 3, 1, 1, 1)) <= 1.0);  // C = 7, K = 136: three channel chunks (64, 64, 8)
  CHECK(run_conv<Cfg>(problem2d(2, 11, 12, 7, 136, 5, 5, 2, 2, 1), 2) <= 1.0);  // split_k is ignored (one pass over the columns)
  CHECK(run_conv<Cfg>(problem2d(1, 29, 31, 3, 16, 7, 7, 3, 3, 3)) <= 1.0);   // N = 1, prime H and W, stride 3
  CHECK(run_conv<Cfg>(problem2d(1, 13, 11, 5, 8, 3, 2, 4, 3, 1, 2)) <= 1.0);  // asymmetric 3 x 2, dilation 2, padding wider than the filter
  CHECK(run_conv<Cfg>(problem2d(2, 227, 229, 3, 32, 11, 11, 2, 2, 4)) <= 1.0);  // AlexNet's 11 x 11 stride 4, odd extents
  CHECK(run_conv<Sm90Fprop<half_t, epilogue::Identity, 64>>(problem2d(2, 16, 15, 3, 64, 7, 7, 3, 3, 2, 2)) <= 1.0);  // dilation 2, f16
  conv::Problem p;
  p.n = 2, p.d = 5, p.h = 6, p.w = 7, p.c = 3, p.k = 16, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1}, p.stride = {2, 1, 2};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 3-D
  p = conv::Problem{};
  p.n = 3, p.w = 331, p.c = 2, p.k = 24, p.s = 7, p.pad_before = {0, 0, 4}, p.pad_after = {0, 0, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 1-D: boxes of 128 pixels along the row (128, 128, 74)
  p.w = 20000, p.stride = {1, 1, 3};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 1-D, a row too wide for one patch: 53 segments of up to 126 pixels
  p.w = 6000, p.c = 3, p.k = 8, p.s = 3, p.pad_before = p.pad_after = {0, 0, 1000}, p.stride = {1, 1, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 1-D, segments that read padding alone (their patches all zeros)
  using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::Relu>;
  CHECK(run_conv<Sm90Fprop<bfloat16_t, Epi>>(problem2d(2, 15, 15, 3, 64, 3, 3, 1, 1, 2)) <= 1.0);
  CHECK(run_conv<Sm90Fprop<bfloat16_t, Epi>>(problem2d(1, 19, 23, 3, 40, 7, 7, 3, 3, 2)) <= 1.0);  // a partial chunk of the bias
  // 1 x 1 dense layers over a plain matrix: any C that is a multiple of 8 (the last k-tile partial).
  CHECK(run_conv<Cfg>(problem2d(2, 9, 11, 24, 72, 1, 1, 0, 0, 1)) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(1, 13, 7, 200, 64, 1, 1, 0, 0, 1)) <= 1.0);
  // What it refuses, with the fix: K not a multiple of 8; a filter whose input patch passes the
  // shared memory (the sm80 kernel pads the channels instead); scales.
  test::DeviceBuffer<bfloat16_t> x(4096), w(4096), y(4096);
  args.x = x.get(), args.w = w.get(), args.y = y.get();
  args.problem = problem2d(1, 8, 8, 3, 12, 3, 3, 1, 1, 1);
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("K = 12 is not a multiple of 8"));
  args.problem = huge_small_channel_filter();
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("shared memory") && Catch::Contains("Warps<M, N> Config"));
  args.problem = stem;
  test::DeviceBuffer<float> scale(std::vector<float>{1.0f});
  args.scale_x = scale.get();
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("small-channel kernel"));
}

TEST_CASE("conv Fprop sm90: fp8 e4m3 with per-tensor scales and amax", "[gpu][conv][sm90][fp8]") {
  test::require_gpu();
  // A k-tile is one 128-byte swizzle span: 128 channels of fp8.
  using F8 = conv::Config<arch::Sm90, float8_e4m3_t, float8_e4m3_t, bfloat16_t, float, conv::Fprop, gemm::BlockTile<128, 128, 128>,
                          gemm::Warpgroups<2>, gemm::Stages<4>>;
  CHECK(run_conv<F8>(problem2d(2, 9, 11, 128, 64, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<F8>(problem2d(2, 9, 11, 128, 64, 3, 3, 1, 1, 1), 1, {0.5f, 0.25f, 4.0f, true}) <= 1.0);  // scales, amax
  CHECK(run_conv<F8>(problem2d(1, 13, 12, 256, 136, 3, 3, 1, 1, 2), 0, {1.0f, 0.125f, 1.0f, true}) <= 1.0);  // stride 2, automatic split
  CHECK(run_conv<F8>(problem2d(3, 8, 9, 256, 72, 1, 1, 0, 0, 1)) <= 1.0);                                   // 1 x 1: tiled loads
  CHECK(run_conv<F8>(problem2d(2, 8, 8, 512, 64, 3, 3, 1, 1, 1, 1, 4), 2, {2.0f, 1.0f, 0.5f, true}) <= 1.0);  // groups = 4, split-K
  using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::Relu>;
  using F8Fused = conv::Config<arch::Sm90, float8_e4m3_t, float8_e4m3_t, bfloat16_t, float, conv::Fprop, gemm::BlockTile<128, 128, 128>,
                               gemm::Warpgroups<2>, gemm::Stages<4>, Epi>;
  CHECK(run_conv<F8Fused>(problem2d(2, 10, 9, 128, 96, 3, 3, 1, 1, 1), 1, {0.5f, 0.5f, 1.0f, true}) <= 1.0);  // bias + ReLU, then amax
  // An fp8 output: the result scaled into e4m3's range (tolerance: its 3 mantissa bits).
  using F8Out = conv::Config<arch::Sm90, float8_e4m3_t, float8_e4m3_t, float8_e4m3_t, float, conv::Fprop, gemm::BlockTile<128, 128, 128>,
                             gemm::Warpgroups<2>, gemm::Stages<4>>;
  CHECK(run_conv<F8Out>(problem2d(2, 9, 7, 128, 64, 3, 3, 1, 1, 1), 1, {1.0f, 1.0f, 0.125f, true}) <= 1.0);
}

TEST_CASE("conv sm90: per-tensor scales map to each direction's operands", "[gpu][conv][sm90]") {
  test::require_gpu();
  Scales const sc{0.5f, 0.25f, 4.0f, true};  // the two inputs' scales and the output's, amax checked
  CHECK(run_conv<Sm90Fprop<bfloat16_t>>(problem2d(2, 9, 11, 64, 40, 3, 3, 1, 1, 1), 1, sc) <= 1.0);
  CHECK(run_conv<Sm90Conv<bfloat16_t, conv::Dgrad>>(problem2d(2, 9, 11, 64, 64, 3, 3, 1, 1, 1), 1, sc) <= 1.0);
  CHECK(run_conv<Sm90Conv<bfloat16_t, conv::Wgrad, 128, 256>>(problem2d(2, 9, 11, 64, 64, 3, 3, 1, 1, 1), 2, sc) <= 1.0);
}

TEST_CASE("conv Dgrad sm90: unit stride through the flipped filter, 1-D to 3-D, groups", "[gpu][conv][sm90]") {
  test::require_gpu();
  using Cfg = Sm90Conv<bfloat16_t, conv::Dgrad>;
  CHECK(run_conv<Cfg>(problem2d(2, 7, 5, 40, 64, 3, 3, 1, 1, 1)) <= 1.0);        // C below the tile
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 24, 128, 1, 1, 0, 0, 1)) <= 1.0);     // 1x1: a plain matrix, tiled loads
  CHECK(run_conv<Cfg>(problem2d(2, 9, 7, 48, 256, 1, 1, 0, 0, 1, 1, 2)) <= 1.0);  // the same, groups = 2
  CHECK(run_conv<Cfg>(problem2d(1, 13, 17, 16, 64, 5, 5, 2, 2, 1)) <= 1.0);      // 5x5
  CHECK(run_conv<Cfg>(problem2d(1, 9, 10, 32, 64, 3, 2, 4, 3, 1, 2)) <= 1.0);    // dilation 2, padding wider than the filter
  CHECK(run_conv<Cfg>(problem2d(2, 8, 9, 48, 128, 3, 3, 1, 1, 1, 1, 2)) <= 1.0);  // groups = 2
  CHECK(run_conv<Cfg>(problem2d(8, 28, 28, 136, 128, 3, 3, 1, 1, 1)) <= 1.0);    // several tiles a block
  CHECK(run_conv<Cfg>(problem2d(1, 7, 7, 64, 512, 3, 3, 1, 1, 1), 3) <= 1.0);    // split-K
  CHECK(run_conv<Sm90Conv<half_t, conv::Dgrad, 128, 256>>(problem2d(2, 14, 14, 256, 64, 3, 3, 1, 1, 1)) <= 1.0);
  conv::Problem p;
  p.n = 3, p.w = 37, p.c = 32, p.k = 64, p.s = 5, p.pad_before = {0, 0, 2}, p.pad_after = {0, 0, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 1-D: rank 3
  p = conv::Problem{};
  p.n = 2, p.d = 5, p.h = 6, p.w = 7, p.c = 24, p.k = 64, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 3-D: rank 5
}

TEST_CASE("conv Wgrad sm90: X im2col as B, split-K over the pixels, 1-D to 3-D, groups", "[gpu][conv][sm90]") {
  test::require_gpu();
  using Cfg = Sm90Conv<bfloat16_t, conv::Wgrad>;
  CHECK(run_conv<Cfg>(problem2d(2, 7, 5, 64, 40, 3, 3, 1, 1, 1)) <= 1.0);         // K below the tile
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 64, 24, 1, 1, 0, 0, 2), 4) <= 1.0);    // 1x1 stride 2
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 192, 24, 1, 1, 0, 0, 1), 0) <= 1.0);   // 1x1 unit stride: a plain matrix, tiled loads
  CHECK(run_conv<Cfg>(problem2d(2, 9, 7, 128, 48, 1, 1, 0, 0, 1, 1, 2)) <= 1.0);  // the same, groups = 2
  CHECK(run_conv<Cfg>(problem2d(1, 13, 17, 64, 32, 5, 5, 2, 2, 3)) <= 1.0);       // 5x5 stride 3
  CHECK(run_conv<Cfg>(problem2d(1, 9, 10, 64, 16, 3, 2, 4, 3, 1, 2)) <= 1.0);     // dilation 2, wide padding
  CHECK(run_conv<Cfg>(problem2d(2, 8, 9, 128, 64, 3, 3, 1, 1, 2, 1, 2)) <= 1.0);  // groups = 2, stride 2
  CHECK(run_conv<Cfg>(problem2d(4, 28, 28, 192, 136, 3, 3, 1, 1, 1), 0) <= 1.0);  // K = N P Q = 3136, automatic split
  CHECK(run_conv<Sm90Conv<bfloat16_t, conv::Wgrad, 64, 256>>(problem2d(4, 14, 14, 64, 64, 3, 3, 1, 1, 1), 0) <= 1.0);
  CHECK(run_conv<Sm90Conv<half_t, conv::Wgrad>>(problem2d(2, 9, 11, 128, 56, 3, 3, 1, 1, 2), 3) <= 1.0);
  conv::Problem p;
  p.n = 3, p.w = 37, p.c = 64, p.k = 48, p.s = 5, p.pad_before = {0, 0, 2}, p.pad_after = {0, 0, 1}, p.stride = {1, 1, 2};
  CHECK(run_conv<Cfg>(p, 2) <= 1.0);  // 1-D: rank 3
  p = conv::Problem{};
  p.n = 2, p.d = 5, p.h = 6, p.w = 7, p.c = 64, p.k = 40, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1}, p.stride = {2, 1, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 3-D: rank 5
}

TEST_CASE("conv sm90: refusals name the fix", "[gpu][conv][sm90]") {
  test::require_gpu();
  test::DeviceBuffer<bfloat16_t> x(1 << 16), w(1 << 16), y(1 << 16);
  auto const refusal = [&](auto cfg, conv::Problem const& p) {
    using Cfg = decltype(cfg);
    typename conv::Conv<Cfg>::Arguments args;
    args.problem = p;
    args.x = x.get();
    args.w = w.get();
    args.y = y.get();
    return conv::Conv<Cfg>::can_implement(args).message();
  };
  CHECK_THAT(refusal(Sm90Conv<bfloat16_t, conv::Dgrad>{}, problem2d(1, 8, 8, 32, 64, 3, 3, 1, 1, 2)),
             Catch::Contains("stride of 2 is not on the Hopper kernel yet; use a Warps<M, N> Config"));
  CHECK_THAT(refusal(Sm90Conv<bfloat16_t, conv::Wgrad>{}, problem2d(1, 8, 8, 32, 64, 3, 3, 1, 1, 1)),
             Catch::Contains("C / groups = 32 is not a multiple of 64"));
  CHECK_THAT(refusal(Sm90Conv<bfloat16_t, conv::Fprop>{}, problem2d(1, 8, 8, 96, 64, 3, 3, 1, 1, 1)),
             Catch::Contains("C / groups = 96 is not a multiple of BlockTile K = 64"));
  CHECK_THAT(refusal(Sm90Conv<bfloat16_t, conv::Fprop>{}, problem2d(1, 40, 40, 64, 64, 3, 3, 1, 1, 9)),
             Catch::Contains("stride of 9 is past TMA's 8"));
  conv::Problem p = problem2d(1, 64, 64, 64, 64, 3, 3, 1, 1, 1, 200);  // a dilated filter of 401 pixels
  p.pad_before = p.pad_after = {0, 200, 200};
  CHECK_THAT(refusal(Sm90Conv<bfloat16_t, conv::Fprop>{}, p), Catch::Contains("TMA im2col offsets reach"));
  p = problem2d(1, 8, 8, 64, 64, 3, 3, 1, 1, 1);
  p.pad_before = {0, 130, 1};
  CHECK_THAT(refusal(Sm90Conv<bfloat16_t, conv::Fprop>{}, p), Catch::Contains("outside TMA's range [-128, 127]"));
}
