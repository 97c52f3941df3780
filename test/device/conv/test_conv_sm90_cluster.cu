// conv::Conv on the Hopper kernel in clusters of two blocks (gemm::ClusterShape<2, 1> or <1, 2>):
// the blocks of a cluster take neighbouring tiles and share the operand tile they have in common,
// multicast by TMA (conv/sm90/im2col.hpp, Share): a tiled operand in halves, each block loading
// one; an im2col box whole, the two blocks taking turns by k-tile (Wgrad's boxes of B by column
// block too). Against a direct convolution on the host (conv_check.hpp), every direction in both
// cluster shapes: tile counts that are odd (a cluster's second tile past the output), 1 x 1 layers
// (tiled A or B), groups, split-K, 1-D and 3-D maps, bias + ReLU.
#include "conv_check.hpp"

using namespace tessera;

namespace {

using namespace tessera::test::conv_check;

template <class Dir, int M, int N, class E = bfloat16_t, class Epi = epilogue::Identity>
using Clustered = conv::Config<arch::Sm90, E, E, E, float, Dir, gemm::BlockTile<128, 128, 64>,
                               gemm::Warpgroups<2, gemm::Cooperative, gemm::ClusterShape<M, N>>, gemm::Stages<4>, Epi>;

// The shapes every cluster shape runs in `Dir`: channels chosen so that both tile counts are odd
// somewhere (3 x 3: 136 channels; 1 x 1: a plain matrix), groups with split-K, 1-D, 3-D. Dgrad's
// k-tile is 64 filters of one tap: its problems swap C and K (its GEMM's N is C).
template <class Cfg>
void run_shapes() {
  constexpr bool dgrad = Cfg::direction == conv::Direction::kDgrad;
  auto const shape = [&](int n, int h, int w, int c, int k, int r, int pad, int stride, int groups = 1) {
    return dgrad ? problem2d(n, h, w, k, c, r, r, pad, pad, stride, 1, groups) : problem2d(n, h, w, c, k, r, r, pad, pad, stride, 1, groups);
  };
  CHECK(run_conv<Cfg>(shape(2, 7, 5, 64, 64, 3, 1, 1)) <= 1.0);              // one tile: the cluster's partner past it
  CHECK(run_conv<Cfg>(shape(4, 15, 13, 128, 136, 3, 1, 1)) <= 1.0);          // odd tile counts
  CHECK(run_conv<Cfg>(shape(3, 11, 13, 192, 200, 1, 0, 1)) <= 1.0);          // 1 x 1 unit stride: tiled loads
  CHECK(run_conv<Cfg>(shape(2, 9, 7, 256, 384, 3, 1, 1, 2), 2) <= 1.0);      // groups = 2, split-K
  CHECK(run_conv<Cfg>(shape(8, 28, 28, 128, 256, 3, 1, 1)) <= 1.0);          // several tiles a block
  conv::Problem p;
  p.n = 3, p.w = 37, p.c = dgrad ? 192 : 64, p.k = dgrad ? 64 : 192, p.s = 5, p.pad_before = {0, 0, 2}, p.pad_after = {0, 0, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 1-D: rank 3
  p = conv::Problem{};
  p.n = 2, p.d = 5, p.h = 6, p.w = 7, p.c = dgrad ? 192 : 128, p.k = dgrad ? 128 : 192, p.t = p.r = p.s = 3;
  p.pad_before = p.pad_after = {1, 1, 1};
  CHECK(run_conv<Cfg>(p) <= 1.0);  // 3-D: rank 5
}

}  // namespace

TEST_CASE("conv sm90 clusters: Fprop shares the input's boxes along N and the filters along M", "[gpu][conv][sm90][cluster]") {
  test::require_gpu();
  run_shapes<Clustered<conv::Fprop, 1, 2>>();
  run_shapes<Clustered<conv::Fprop, 2, 1>>();
  CHECK(run_conv<Clustered<conv::Fprop, 1, 2>>(problem2d(1, 13, 17, 64, 256, 5, 5, 2, 2, 3)) <= 1.0);  // stride 3
  using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::Relu>;
  CHECK(run_conv<Clustered<conv::Fprop, 1, 2, bfloat16_t, Epi>>(problem2d(2, 14, 14, 64, 264, 3, 3, 1, 1, 1, 2)) <= 1.0);  // dilation 2
  CHECK(run_conv<Clustered<conv::Fprop, 2, 1, half_t>>(problem2d(3, 10, 9, 64, 136, 3, 3, 1, 1, 2)) <= 1.0);  // f16, stride 2
}

TEST_CASE("conv sm90 clusters: Dgrad shares dY's boxes along N and the filters along M", "[gpu][conv][sm90][cluster]") {
  test::require_gpu();
  run_shapes<Clustered<conv::Dgrad, 1, 2>>();
  run_shapes<Clustered<conv::Dgrad, 2, 1>>();
}

TEST_CASE("conv sm90 clusters: Wgrad shares dY along N and X's boxes along M", "[gpu][conv][sm90][cluster]") {
  test::require_gpu();
  run_shapes<Clustered<conv::Wgrad, 1, 2>>();
  run_shapes<Clustered<conv::Wgrad, 2, 1>>();
  CHECK(run_conv<Clustered<conv::Wgrad, 2, 1>>(problem2d(4, 28, 28, 192, 136, 3, 3, 1, 1, 1), 0) <= 1.0);  // automatic split
}
