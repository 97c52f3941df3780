// The ResNet block's epilogue on the Hopper convolution: conv + bias + residual + ReLU in one
// kernel, the residual (of the written tensor's shape) read a tile's block at a time through the
// staging buffers (gemm/sm90/epilogue.hpp, epilogue/chain.hpp's source matrices) on interior
// tiles and element by element on edge tiles. Fprop and Dgrad, 1 x 1 (plain) and 3 x 3 layers,
// groups (a group's channels as a column block of the output), split-K, several tiles a block.
#include "conv_check.hpp"

using namespace tessera;

namespace {

using namespace tessera::test::conv_check;

template <class E>
using Block = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, E>, epilogue::ResidualAdd<E>, epilogue::Relu>;
template <class Dir, int BN, class E = bfloat16_t>
using BlockConv = conv::Config<arch::Sm90, E, E, E, float, Dir, gemm::BlockTile<128, BN, 64>, gemm::Warpgroups<2>, gemm::Stages<4>, Block<E>>;

}  // namespace

TEST_CASE("conv sm90: bias + residual + ReLU fused, the residual staged", "[gpu][conv][sm90][block]") {
  test::require_gpu();
  STATIC_REQUIRE(gemm::sm90::Epilogue<BlockConv<conv::Fprop, 256>::Gemm>::sourced);
  CHECK(run_conv<BlockConv<conv::Fprop, 256>>(problem2d(8, 28, 28, 64, 256, 1, 1, 0, 0, 1)) <= 1.0);   // 1 x 1, interior tiles
  CHECK(run_conv<BlockConv<conv::Fprop, 256>>(problem2d(3, 11, 13, 128, 200, 1, 1, 0, 0, 1)) <= 1.0);  // edge tiles
  CHECK(run_conv<BlockConv<conv::Fprop, 128>>(problem2d(4, 14, 14, 128, 128, 3, 3, 1, 1, 1)) <= 1.0);  // 3 x 3
  CHECK(run_conv<BlockConv<conv::Fprop, 64, half_t>>(problem2d(8, 28, 28, 64, 64, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<BlockConv<conv::Fprop, 128>>(problem2d(2, 14, 14, 256, 192, 3, 3, 1, 1, 1, 1, 2)) <= 1.0);  // groups: K / g = 96
  CHECK(run_conv<BlockConv<conv::Fprop, 128>>(problem2d(2, 9, 7, 256, 80, 3, 3, 1, 1, 1, 1, 2), 2) <= 1.0);  // K / g = 40, split-K
  CHECK(run_conv<BlockConv<conv::Fprop, 256>>(problem2d(1, 7, 7, 512, 512, 3, 3, 1, 1, 1), 0) <= 1.0);       // conv5_x: automatic split
  CHECK(run_conv<BlockConv<conv::Dgrad, 128>>(problem2d(4, 14, 14, 128, 128, 3, 3, 1, 1, 1)) <= 1.0);
  CHECK(run_conv<BlockConv<conv::Dgrad, 128>>(problem2d(3, 11, 13, 136, 128, 1, 1, 0, 0, 1)) <= 1.0);
}
