// conv::Conv, Fprop, Dgrad and Wgrad on the sm80 kernel (cp.async gathers; runs on Hopper too),
// against a direct convolution on the host (conv_check.hpp). Shapes: 1-D, 2-D and 3-D; small prime N, H, W; C / groups multiples of BlockTile
// K; K not a multiple of the tile; 1x1, 3x3, 5x5, 7x7 and asymmetric filters; stride 2 and 3;
// dilation 2; padding wider than half the filter; groups; split-K; a fused bias + ReLU; the
// refusals with their messages.
#include "conv_check.hpp"

using namespace tessera;

namespace {

using namespace tessera::test::conv_check;

template <class E, class Dir = conv::Fprop, class Epi = epilogue::Identity>
using Sm80Conv = conv::Config<arch::Sm80, E, E, E, float, Dir, gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<3>, Epi>;
template <class E, class Epi = epilogue::Identity>
using Sm80Fprop = Sm80Conv<E, conv::Fprop, Epi>;

}  // namespace

TEST_CASE("conv Fprop sm80: 2-D shapes, bf16", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Fprop<bfloat16_t>;
  CHECK(run_conv<Cfg>(problem2d(2, 7, 5, 32, 40, 3, 3, 1, 1, 1)) <= 1.0);     // 3x3 pad 1, K not a tile multiple
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 64, 72, 1, 1, 0, 0, 2)) <= 1.0);   // 1x1 stride 2
  CHECK(run_conv<Cfg>(problem2d(1, 13, 17, 32, 64, 5, 5, 2, 2, 3)) <= 1.0);   // 5x5 stride 3
  CHECK(run_conv<Cfg>(problem2d(2, 23, 19, 32, 16, 7, 7, 3, 3, 2)) <= 1.0);   // 7x7 stride 2
  CHECK(run_conv<Cfg>(problem2d(1, 9, 10, 32, 24, 3, 2, 4, 3, 1, 2)) <= 1.0); // asymmetric, dilation 2, padding wider than the filter
  CHECK(run_conv<Cfg>(problem2d(5, 28, 28, 96, 136, 3, 3, 1, 1, 1)) <= 1.0);  // several tiles each way
}

TEST_CASE("conv Fprop sm80: 1-D, 3-D, groups, split-K, f16", "[gpu][conv][sm80]") {
  test::require_gpu();
  conv::Problem p;
  p.n = 3, p.w = 37, p.c = 32, p.k = 48, p.s = 5, p.pad_before = {0, 0, 2}, p.pad_after = {0, 0, 1}, p.stride = {1, 1, 2};
  CHECK(run_conv<Sm80Fprop<bfloat16_t>>(p) <= 1.0);  // 1-D
  p = conv::Problem{};
  p.n = 2, p.d = 5, p.h = 6, p.w = 7, p.c = 32, p.k = 40, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1}, p.stride = {2, 1, 1};
  CHECK(run_conv<Sm80Fprop<bfloat16_t>>(p) <= 1.0);  // 3-D, stride 2 in depth
  CHECK(run_conv<Sm80Fprop<bfloat16_t>>(problem2d(2, 8, 9, 64, 48, 3, 3, 1, 1, 1, 1, 2)) <= 1.0);  // groups = 2
  CHECK(run_conv<Sm80Fprop<bfloat16_t>>(problem2d(1, 7, 7, 256, 64, 3, 3, 1, 1, 1), 3) <= 1.0);   // split-K
  CHECK(run_conv<Sm80Fprop<half_t>>(problem2d(2, 9, 11, 64, 56, 3, 3, 1, 1, 2)) <= 1.0);
}

TEST_CASE("conv Fprop sm80: channels of a group a multiple of 8, not of BlockTile K (a vector's own tap)", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Fprop<bfloat16_t>;
  CHECK(run_conv<Cfg>(problem2d(2, 9, 11, 8, 24, 3, 3, 1, 1, 1)) <= 1.0);            // C = 8: four taps a k-tile
  CHECK(run_conv<Cfg>(problem2d(1, 23, 21, 16, 64, 7, 7, 3, 3, 2)) <= 1.0);          // C = 16, 7x7 stride 2 (K = 784)
  CHECK(run_conv<Cfg>(problem2d(3, 8, 7, 40, 40, 3, 3, 1, 1, 1)) <= 1.0);            // C = 40: taps straddle k-tiles
  CHECK(run_conv<Cfg>(problem2d(2, 10, 9, 256, 256, 3, 3, 1, 1, 1, 1, 32)) <= 1.0);  // ResNeXt: groups = 32, C / g = 8
  CHECK(run_conv<Cfg>(problem2d(1, 12, 12, 96, 64, 3, 3, 1, 1, 2, 1, 4), 2) <= 1.0);  // C / g = 24, K / g = 16, split-K
  conv::Problem p;
  p.n = 2, p.d = 4, p.h = 5, p.w = 6, p.c = 24, p.k = 16, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 3-D
}

TEST_CASE("conv Fprop sm80: small-channel inputs (C = 1 to 7) on the direct kernel", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Fprop<bfloat16_t>;
  CHECK(run_conv<Cfg>(problem2d(2, 23, 21, 3, 16, 7, 7, 3, 3, 2)) <= 1.0);  // the ResNet stem's shape: RGB, 7x7 stride 2
  CHECK(run_conv<Cfg>(problem2d(3, 9, 10, 1, 24, 3, 3, 1, 1, 1)) <= 1.0);   // grayscale
  CHECK(run_conv<Cfg>(problem2d(1, 17, 13, 4, 40, 5, 5, 2, 2, 2)) <= 1.0);   // C = 4
  CHECK(run_conv<Cfg>(problem2d(2, 11, 12, 7, 8, 3, 3, 1, 1, 1), 2) <= 1.0);  // C = 7, K = 8; split_k ignored
  CHECK(run_conv<Cfg>(problem2d(1, 31, 37, 6, 136, 2, 5, 3, 1, 3)) <= 1.0);  // asymmetric 2 x 5, stride 3, padding wider than half the filter
  CHECK(run_conv<Sm80Fprop<half_t>>(problem2d(1, 7, 7, 3, 64, 7, 7, 3, 3, 1)) <= 1.0);  // f16: a 7 x 7 output, boxes across rows
  using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::Relu>;
  CHECK(run_conv<Sm80Fprop<bfloat16_t, Epi>>(problem2d(2, 15, 15, 3, 64, 3, 3, 1, 1, 2)) <= 1.0);
  // A float output from 16-bit inputs: 8 outputs are two 16-byte vectors.
  using F32Out = conv::Config<arch::Sm80, bfloat16_t, bfloat16_t, float, float, conv::Fprop, gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>,
                              gemm::Stages<3>>;
  CHECK(run_conv<F32Out>(problem2d(2, 23, 21, 3, 24, 7, 7, 3, 3, 2)) <= 1.0);
  // A filter whose input patch passes the shared memory: padded to 8 channels in the workspace
  // instead (and, without the workspace, it asks for it and writes nothing).
  CHECK(run_conv<Cfg>(huge_small_channel_filter()) <= 1.0);
  check_asks_for_workspace<Cfg>(huge_small_channel_filter(), "padded to 8 channels");
}

TEST_CASE("conv Fprop sm80: tf32 (float tensors, tf32 tensor cores)", "[gpu][conv][sm80][tf32]") {
  test::require_gpu();
  using Tf32 = conv::Config<arch::Sm80, float, float, float, float, conv::Fprop, gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>,
                            gemm::Stages<3>>;
  CHECK(run_conv<Tf32>(problem2d(2, 9, 11, 12, 20, 3, 3, 1, 1, 1)) <= 1.0);     // C = 12: three 4-channel vectors a tap
  CHECK(run_conv<Tf32>(problem2d(1, 23, 21, 64, 64, 7, 7, 3, 3, 2)) <= 1.0);    // 7x7 stride 2
  CHECK(run_conv<Tf32>(problem2d(3, 11, 13, 128, 72, 1, 1, 0, 0, 1)) <= 1.0);   // 1x1
  CHECK(run_conv<Tf32>(problem2d(1, 7, 7, 256, 64, 3, 3, 1, 1, 1), 3) <= 1.0);  // split-K
  CHECK(run_conv<Tf32>(problem2d(2, 8, 9, 64, 48, 3, 3, 1, 1, 1, 1, 2)) <= 1.0);  // groups = 2
  CHECK(run_conv<Tf32>(problem2d(2, 9, 10, 3, 16, 3, 3, 1, 1, 1)) <= 1.0);     // C = 3: padded in the workspace
  check_asks_for_workspace<Tf32>(problem2d(1, 8, 8, 3, 16, 3, 3, 1, 1, 1), "padded to 8 channels");
  using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, float>, epilogue::Relu>;
  CHECK(run_conv<conv::Config<arch::Sm80, float, float, float, float, conv::Fprop, gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>,
                              gemm::Stages<3>, Epi>>(problem2d(2, 10, 12, 32, 40, 3, 3, 1, 1, 1)) <= 1.0);
}

TEST_CASE("conv Fprop sm80: bias + ReLU fused", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::Relu>;
  CHECK(run_conv<Sm80Fprop<bfloat16_t, Epi>>(problem2d(2, 14, 14, 64, 72, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<Sm80Fprop<bfloat16_t, Epi>>(problem2d(1, 9, 9, 32, 40, 1, 1, 0, 0, 2), 2) <= 1.0);
  // Grouped: the bias is per output channel across the groups (the chain sees output channels).
  CHECK(run_conv<Sm80Fprop<bfloat16_t, Epi>>(problem2d(2, 8, 9, 64, 48, 3, 3, 1, 1, 1, 1, 2)) <= 1.0);
  CHECK(run_conv<Sm80Fprop<bfloat16_t, Epi>>(problem2d(1, 7, 6, 128, 64, 3, 3, 1, 1, 1, 1, 4), 3) <= 1.0);  // and split-K
}

TEST_CASE("conv Dgrad sm80: unit and strided, 1-D to 3-D, groups", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Conv<bfloat16_t, conv::Dgrad>;
  CHECK(run_conv<Cfg>(problem2d(2, 7, 5, 40, 32, 3, 3, 1, 1, 1)) <= 1.0);      // C not a tile multiple
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 24, 64, 1, 1, 0, 0, 2)) <= 1.0);    // 1x1 stride 2
  CHECK(run_conv<Cfg>(problem2d(1, 13, 17, 16, 32, 5, 5, 2, 2, 3)) <= 1.0);    // 5x5 stride 3
  CHECK(run_conv<Cfg>(problem2d(1, 9, 10, 32, 32, 3, 2, 4, 3, 1, 2)) <= 1.0);  // asymmetric, dilation 2, wide padding
  CHECK(run_conv<Cfg>(problem2d(2, 8, 9, 48, 64, 3, 3, 1, 1, 2, 1, 2)) <= 1.0);  // groups = 2, stride 2
  conv::Problem p;
  p.n = 2, p.d = 5, p.h = 6, p.w = 7, p.c = 24, p.k = 32, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1}, p.stride = {2, 1, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 3-D
  CHECK(run_conv<Sm80Conv<half_t, conv::Dgrad>>(problem2d(2, 9, 11, 64, 64, 3, 3, 1, 1, 1), 2) <= 1.0);  // split-K, f16
}

TEST_CASE("conv Wgrad sm80: split-K over the pixels, 1-D to 3-D, groups", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Conv<bfloat16_t, conv::Wgrad>;
  CHECK(run_conv<Cfg>(problem2d(2, 7, 5, 32, 40, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(3, 11, 13, 64, 24, 1, 1, 0, 0, 2), 4) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(1, 13, 17, 16, 32, 5, 5, 2, 2, 3)) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(1, 9, 10, 32, 16, 3, 2, 4, 3, 1, 2)) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(2, 8, 9, 48, 64, 3, 3, 1, 1, 2, 1, 2)) <= 1.0);
  CHECK(run_conv<Cfg>(problem2d(4, 28, 28, 64, 64, 3, 3, 1, 1, 1), 8) <= 1.0);  // K = N P Q = 3136, split 8
  conv::Problem p;
  p.n = 3, p.w = 37, p.c = 32, p.k = 48, p.s = 5, p.pad_before = {0, 0, 2}, p.pad_after = {0, 0, 1}, p.stride = {1, 1, 2};
  CHECK(run_conv<Cfg>(p, 2) <= 1.0);  // 1-D
  CHECK(run_conv<Sm80Conv<half_t, conv::Wgrad>>(problem2d(2, 9, 11, 64, 56, 3, 3, 1, 1, 2), 3) <= 1.0);
}

TEST_CASE("conv sm80: per-tensor scales are the Hopper kernel's", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Fprop<bfloat16_t>;
  test::DeviceBuffer<bfloat16_t> x(4096), w(4096), y(4096);
  test::DeviceBuffer<float> scale(std::vector<float>{2.0f});
  typename conv::Conv<Cfg>::Arguments args;
  args.problem = problem2d(1, 4, 4, 64, 16, 3, 3, 1, 1, 1);
  args.x = x.get(), args.w = w.get(), args.y = y.get();
  REQUIRE(conv::Conv<Cfg>::can_implement(args).ok());
  args.scale_x = scale.get();
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("applied by the Hopper kernel (Warpgroups) only"));
}

TEST_CASE("conv Fprop sm80: refusals name the fix and write nothing", "[gpu][conv][sm80]") {
  test::require_gpu();
  using Cfg = Sm80Fprop<bfloat16_t>;
  test::DeviceBuffer<bfloat16_t> x(4096), w(4096), y(4096);
  typename conv::Conv<Cfg>::Arguments args;
  args.problem = problem2d(1, 4, 4, 6, 16, 3, 3, 1, 1, 1, 1, 2);  // C / groups = 3 (dense C below 8 is padded; groups are not)
  args.x = x.get();
  args.w = w.get();
  args.y = y.get();
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("C / groups = 3, K / groups = 8"));
  args.problem = problem2d(1, 4, 4, 64, 12, 3, 3, 1, 1, 1);
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("C / groups a multiple of 8"));
  args.problem = problem2d(1, 4, 4, 32, 8, 3, 3, 1, 1, 1, 1, 3);
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("groups = 3 must divide C = 32 and K = 8"));
  args.problem = problem2d(1, 4, 4, 32, 8, 3, 3, 1, 1, 1);
  args.y = nullptr;
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("one is null"));
  args.y = y.get() + 1;
  CHECK_THAT(conv::Conv<Cfg>::can_implement(args).message(), Catch::Contains("16-byte aligned"));
  args.y = y.get();
  auto const before = y.to_host();
  args.split_k = 2;
  Status const s = conv::Conv<Cfg>{}.run(args, nullptr);
  CHECK(s.code() == StatusCode::kWorkspaceTooSmall);
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(y.to_host() == before);
}

TEST_CASE("conv depthwise (groups = C = K): the direct kernel, Fprop and Dgrad", "[gpu][conv][depthwise]") {
  test::require_gpu();
  using Fp = Sm80Fprop<bfloat16_t>;
  using Dg = Sm80Conv<bfloat16_t, conv::Dgrad>;
  auto const dw = [](int n, int h, int w, int c, int r, int s, int pad_h, int pad_w, int stride, int dilation = 1) {
    return problem2d(n, h, w, c, c, r, s, pad_h, pad_w, stride, dilation, c);
  };
  CHECK(run_conv<Fp>(dw(2, 13, 11, 64, 3, 3, 1, 1, 1)) <= 1.0);       // MobileNet's 3x3
  CHECK(run_conv<Fp>(dw(3, 17, 19, 24, 3, 3, 1, 1, 2)) <= 1.0);       // stride 2, C = 24
  CHECK(run_conv<Fp>(dw(1, 23, 29, 40, 5, 5, 4, 4, 1, 2)) <= 1.0);    // 5x5, dilation 2
  CHECK(run_conv<Fp>(dw(2, 9, 8, 128, 7, 7, 5, 4, 3)) <= 1.0);        // 7x7, padding wider than half, stride 3
  CHECK(run_conv<Sm80Fprop<half_t>>(dw(2, 14, 14, 32, 3, 1, 1, 0, 1)) <= 1.0);  // asymmetric, f16
  CHECK(run_conv<Fp>(dw(1, 7, 5, 1024, 3, 3, 1, 1, 1)) <= 1.0);     // 128 vectors: four channel chunks a pixel
  CHECK(run_conv<Fp>(dw(2, 6, 7, 56, 3, 3, 2, 0, 1)) <= 1.0);       // 7 vectors (a block of 7 x 36 threads), two images
  CHECK(run_conv<Dg>(dw(1, 11, 13, 264, 3, 3, 1, 1, 2)) <= 1.0);    // 33 vectors (chunks of 11), strided Dgrad
  CHECK(run_conv<Dg>(dw(2, 10, 9, 48, 5, 3, 2, 1, 1, 2)) <= 1.0);   // Dgrad, dilation 2
  for (int s : {3, 5, 7}) {  // the register windows (unit stride along W), widths not a multiple of a thread's outputs
    CHECK(run_conv<Fp>(dw(2, 7, 13, 32, 3, s, 1, s / 2, 1)) <= 1.0);
    CHECK(run_conv<Dg>(dw(2, 7, 13, 32, 3, s, 1, s / 2, 1)) <= 1.0);
    CHECK(run_conv<Fp>(dw(1, 5, 6, 16, 1, s, 0, s - 1, 1)) <= 1.0);  // padding wider than half
    CHECK(run_conv<Dg>(dw(1, 5, 6, 16, 1, s, 0, s - 1, 1)) <= 1.0);
  }
  CHECK(run_conv<Sm80Conv<half_t, conv::Dgrad>>(dw(2, 12, 11, 40, 3, 3, 1, 1, 1)) <= 1.0);  // f16 Dgrad
  for (int s : {3, 5}) {  // the register windows with a stride or dilation along H only (unit along W)
    conv::Problem q = dw(2, 11, 13, 24, s, s, s / 2, s / 2, 1);
    q.stride = {1, 2, 1};
    CHECK(run_conv<Fp>(q) <= 1.0);
    CHECK(run_conv<Dg>(q) <= 1.0);  // Dgrad: only the rows the stride divides
    q.stride = {1, 1, 1}, q.dilation = {1, 2, 1}, q.pad_before = q.pad_after = {0, s - 1, s / 2};
    CHECK(run_conv<Fp>(q) <= 1.0);
    CHECK(run_conv<Dg>(q) <= 1.0);
  }
  using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::Relu>;
  CHECK(run_conv<Sm80Fprop<bfloat16_t, Epi>>(dw(2, 10, 12, 48, 3, 3, 1, 1, 1)) <= 1.0);  // bias (per channel) + ReLU
  conv::Problem p;
  p.n = 2, p.w = 41, p.c = p.k = p.groups = 16, p.s = 7, p.pad_before = {0, 0, 3}, p.pad_after = {0, 0, 3};
  CHECK(run_conv<Fp>(p) <= 1.0);  // 1-D
  CHECK(run_conv<Dg>(p) <= 1.0);
  p = conv::Problem{};
  p.n = 2, p.d = 5, p.h = 6, p.w = 7, p.c = p.k = p.groups = 32, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1};
  p.stride = {2, 1, 2};
  CHECK(run_conv<Fp>(p) <= 1.0);  // 3-D
  CHECK(run_conv<Dg>(p) <= 1.0);
  CHECK(run_conv<Dg>(dw(2, 13, 11, 64, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<Dg>(dw(3, 17, 19, 24, 3, 3, 1, 1, 2)) <= 1.0);       // strided: the terms that divide
  CHECK(run_conv<Dg>(dw(1, 23, 29, 40, 5, 5, 4, 4, 3, 2)) <= 1.0);
  // The shared-memory tiles (conv/depthwise_kernel.hpp): many tiles a row and column with the
  // last one partial, a block's channels a divisor of C / 8 (1, 27 of 513, 6 or 2 of 60), the
  // window at step 2 (3 x 3 and 5 x 5), stride 3 on the general path, 7 x 7, and Dgrad at stride 2
  // and 3 (the source spread out in shared memory).
  CHECK(run_conv<Fp>(dw(1, 115, 113, 32, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<Dg>(dw(1, 115, 113, 32, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<Fp>(dw(2, 57, 59, 64, 3, 3, 1, 1, 2)) <= 1.0);
  CHECK(run_conv<Dg>(dw(2, 57, 59, 64, 3, 3, 1, 1, 2)) <= 1.0);
  CHECK(run_conv<Fp>(dw(2, 37, 41, 8, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<Dg>(dw(2, 37, 41, 8, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<Fp>(dw(1, 5, 7, 4104, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<Dg>(dw(1, 9, 7, 4104, 3, 3, 1, 1, 2)) <= 1.0);
  CHECK(run_conv<Fp>(dw(2, 14, 14, 480, 5, 5, 2, 2, 1)) <= 1.0);
  CHECK(run_conv<Dg>(dw(2, 14, 14, 480, 5, 5, 2, 2, 1)) <= 1.0);
  CHECK(run_conv<Fp>(dw(2, 29, 31, 40, 5, 5, 2, 2, 2)) <= 1.0);
  CHECK(run_conv<Dg>(dw(2, 29, 31, 40, 5, 5, 2, 2, 2)) <= 1.0);
  CHECK(run_conv<Fp>(dw(2, 31, 29, 16, 3, 3, 1, 1, 3)) <= 1.0);
  CHECK(run_conv<Dg>(dw(2, 31, 29, 16, 3, 3, 1, 1, 3)) <= 1.0);
  CHECK(run_conv<Fp>(dw(1, 33, 35, 24, 7, 7, 3, 3, 1)) <= 1.0);
  CHECK(run_conv<Dg>(dw(1, 33, 35, 24, 7, 7, 3, 3, 1)) <= 1.0);
  CHECK(run_conv<Sm80Conv<half_t, conv::Dgrad>>(dw(2, 19, 23, 24, 3, 3, 1, 1, 2)) <= 1.0);  // f16, strided Dgrad
  p = conv::Problem{};  // 3-D at stride 2 in depth, Dgrad spread out in depth
  p.n = 1, p.d = 7, p.h = 9, p.w = 10, p.c = p.k = p.groups = 24, p.t = p.r = p.s = 3, p.pad_before = p.pad_after = {1, 1, 1};
  p.stride = {2, 2, 1};
  CHECK(run_conv<Fp>(p) <= 1.0);
  CHECK(run_conv<Dg>(p) <= 1.0);
  // The Hopper Config runs the same kernel.
  using Sm90Dw = conv::Config<arch::Sm90, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Fprop, gemm::BlockTile<128, 128, 64>,
                              gemm::Warpgroups<2>, gemm::Stages<4>>;
  CHECK(run_conv<Sm90Dw>(dw(2, 13, 11, 64, 3, 3, 1, 1, 1)) <= 1.0);
  // Refusals.
  test::DeviceBuffer<bfloat16_t> x(4096), w(4096), y(4096);
  typename conv::Conv<Fp>::Arguments args;
  args.problem = dw(1, 8, 8, 12, 3, 3, 1, 1, 1);
  args.x = x.get(), args.w = w.get(), args.y = y.get();
  CHECK_THAT(conv::Conv<Fp>::can_implement(args).message(), Catch::Contains("C = 12 is not a multiple of 8"));
  args.problem = dw(1, 210, 210, 8, 3, 3, 100, 100, 1, 100);  // a dilation of 100: a 201 x 202 pixel window
  CHECK_THAT(conv::Conv<Fp>::can_implement(args).message(), Catch::Contains("the depthwise kernel's smallest tile"));
  using Wg = conv::Conv<Sm80Conv<bfloat16_t, conv::Wgrad>>;
  typename Wg::Arguments wargs;
  wargs.problem = dw(1, 8, 8, 16, 3, 3, 1, 1, 1);
  wargs.x = x.get(), wargs.w = w.get(), wargs.y = y.get();
  CHECK_THAT(Wg::can_implement(wargs).message(), Catch::Contains("Wgrad of a depthwise convolution (groups = C = K) is not implemented yet"));
}
