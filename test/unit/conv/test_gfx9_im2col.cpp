// The gfx9 convolution's loaders (conv/gfx9/im2col_loader.hpp) run on the host: every thread of a
// block constructs its loader, loads a k-tile through the host model of buffer loads
// (arch/gfx9/buffer.hpp) and stores it into poisoned LDS tiles, with the code the kernel runs.
// For every work item (output tile, group, K slice) and k-tile of each direction's GEMM:
//   - every element of A's and B's LDS tiles is written;
//   - each element of a row inside M (N) and a k before the slice's end equals a_element /
//     b_element of conv/implicit_gemm.hpp, which test_implicit_gemm checks against direct
//     convolution: padding, strided Dgrad's skipped taps and pixels past the images read as zero;
//   - each element at or past the slice's end is zero (it would be summed twice).
// Over 1-D, 2-D and 3-D problems with strides 1 to 3, dilation, padding, groups, residues in M, N
// and K, and split-K.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "../../support/conv_problem.hpp"
#include "tessera/conv/config.hpp"
#include "tessera/conv/data_parallel.hpp"
#include "tessera/conv/gfx9/im2col_loader.hpp"

using namespace tessera;
using namespace tessera::conv;
using tessera::test::problem2d;

namespace {

using Bits = std::uint16_t;
Bits bits(half_t x) {
  Bits b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

template <class Dir, int BK = 32>
void check_loader(Problem const& pr, int split) {
  using Cfg = conv::Config<arch::Gfx90a, half_t, half_t, half_t, float, Dir, gemm::BlockTile<128, 128, BK>, gemm::Warps<2, 2>, gemm::Stages<2>>;
  using GemmCfg = typename Cfg::Gemm;
  using Loader = gfx9::Loader<GemmCfg, Dir>;
  using TileA = tile::SwizzledTile<half_t, GemmCfg::BM, BK>;
  using TileB = tile::SwizzledTile<half_t, GemmCfg::BN, BK>;
  Direction const dir = Cfg::direction;
  REQUIRE(check(pr));

  // Random non-zero tensors (small integers), 16-byte aligned, then sentinels past their ends.
  std::mt19937 rng(std::uint32_t(pr.n * 7919 + pr.c * 31 + pr.k + int(dir)));
  std::int64_t const sizes[3] = {pr.input_elements(), pr.filter_elements(), pr.output_elements()};
  std::vector<pipeline::Vec16> storage[3];
  half_t* ptr[3];
  for (int i = 0; i < 3; ++i) {
    storage[i].resize(std::size_t((sizes[i] + 64) * 2 + 15) / 16);
    ptr[i] = reinterpret_cast<half_t*>(storage[i].data());
    for (std::int64_t e = 0; e < sizes[i] + 64; ++e) ptr[i][e] = half_t(e < sizes[i] ? float(1 + int(rng() % 50)) : 1000.0f);
  }
  Tensors<half_t> const t{ptr[0], ptr[1], ptr[2]};
  auto const p = data_parallel_params<GemmCfg, Dir, gfx9::ConvParams<GemmCfg>>(pr, t.x, t.w, t.y, typename Cfg::Epilogue{}, split, nullptr);
  Bits const poison = 0x7E7E;

  for (int item = 0; item < p.tiles_m * p.tiles_n * p.batch_count * p.k_splits; ++item) {
    gemm::WorkItem const w = gemm::work_item(p, item);
    gemm::gfx9::KSlice const slice = gemm::gfx9::KSlice::of(p, w, BK);
    for (int kt = 0; kt < slice.tiles; ++kt) {
      std::vector<half_t> lds_a(GemmCfg::BM * BK), lds_b(GemmCfg::BN * BK);
      std::memset(lds_a.data(), 0x7E, lds_a.size() * 2);
      std::memset(lds_b.data(), 0x7E, lds_b.size() * 2);
      for (int tid = 0; tid < GemmCfg::threads; ++tid) {
        Loader loader(p, w, tid);
        REQUIRE(loader.k_tiles == slice.tiles);
        loader.load(p, kt, tid);
        loader.store(lds_a.data(), lds_b.data(), tid);
      }
      int const k0 = slice.begin + kt * BK;
      // The first wrong element of an operand's tile (want: its value where it is defined).
      auto const compare = [&](char const* name, std::vector<half_t> const& lds, auto layout, int rows, int row0, int extent,
                               auto want) {
        for (int r = 0; r < rows; ++r)
          for (int k = 0; k < BK; ++k) {
            Bits const got = bits(lds[std::size_t(layout(r, k))]);
            bool const ok = got != poison && (k0 + k >= slice.end ? got == bits(half_t(0.0f))
                                                                  : row0 + r >= extent || got == bits(want(row0 + r, k0 + k)));
            if (!ok) {
              FAIL(name << " of tile (" << w.tm << ", " << w.tn << "), group " << w.batch << ", slice " << w.split << ", row "
                        << row0 + r << ", k " << k0 + k << ": got bits " << got);
            }
          }
      };
      Tensors<half_t const> const ct{t.x, t.w, t.y};
      compare("A", lds_a, TileA::layout(), GemmCfg::BM, w.tm * GemmCfg::BM, p.m,
              [&](int row, int k) { return a_element(pr, dir, ct, w.batch, row, k); });
      compare("B", lds_b, TileB::layout(), GemmCfg::BN, w.tn * GemmCfg::BN, p.n,
              [&](int col, int k) { return b_element(pr, dir, ct, w.batch, k, col); });
    }
  }
}

template <class Dir>
void check_direction() {
  check_loader<Dir>(problem2d(2, 9, 7, 32, 64, 3, 3, 1, 1, 1), 1);           // 3 x 3, padding
  check_loader<Dir>(problem2d(1, 11, 13, 64, 32, 3, 3, 1, 1, 2), 1);         // stride 2
  check_loader<Dir>(problem2d(2, 10, 9, 32, 32, 3, 3, 2, 2, 3, 2), 2);       // stride 3, dilation 2, split-K
  check_loader<Dir>(problem2d(1, 8, 8, 64, 64, 3, 3, 1, 1, 1, 1, 2), 1);     // 2 groups of 32
  check_loader<Dir>(problem2d(3, 5, 5, 32, 160, 1, 1, 0, 0, 1), 3);          // 1 x 1, N = 160: residues, split-K
  Problem d3;  // 3-D, asymmetric filter and padding
  d3.n = 1, d3.d = 4, d3.h = 5, d3.w = 6, d3.c = 32, d3.k = 32, d3.t = 2, d3.r = 3, d3.s = 1;
  d3.pad_before = {1, 0, 2}, d3.pad_after = {0, 1, 0};
  d3.stride = {2, 1, 1};
  check_loader<Dir>(d3, 2);
  Problem d1;  // 1-D
  d1.n = 2, d1.w = 37, d1.c = 32, d1.k = 64, d1.s = 5, d1.pad_before = d1.pad_after = {0, 0, 2};
  check_loader<Dir>(d1, 1);
}

}  // namespace

TEST_CASE("gfx9 conv loaders: Fprop's LDS tiles equal the index math's A and B", "[conv][gfx9][buffer]") {
  check_direction<Fprop>();
  check_loader<Fprop>(problem2d(1, 6, 6, 8, 32, 3, 3, 1, 1, 1), 1);       // C = 8: vectors of different taps in a k-tile
  check_loader<Fprop>(problem2d(1, 6, 6, 40, 40, 3, 3, 1, 1, 1, 1, 5), 1);  // groups of 8 channels (ResNeXt)
  check_loader<Fprop, 64>(problem2d(2, 7, 7, 64, 64, 3, 3, 1, 1, 1), 2);  // BlockTile K = 64
}

TEST_CASE("gfx9 conv loaders: Dgrad's LDS tiles equal the index math's A and B", "[conv][gfx9][buffer]") {
  check_direction<Dgrad>();
  check_loader<Dgrad, 64>(problem2d(2, 8, 8, 64, 64, 3, 3, 1, 1, 2), 2);  // BlockTile K = 64, stride 2
}

TEST_CASE("gfx9 conv loaders: Wgrad's LDS tiles equal the index math's A and B", "[conv][gfx9][buffer]") {
  check_direction<Wgrad>();
  check_loader<Wgrad>(problem2d(1, 6, 6, 8, 32, 3, 3, 1, 1, 1), 1);  // C = 8
}

TEST_CASE("gfx9 conv: a tensor past a buffer resource's reach is refused", "[conv][gfx9]") {
  Problem p = problem2d(40, 256, 256, 512, 64, 1, 1, 0, 0, 1);  // X: 1.3 G halves, 2.5 GiB
  Status const s = gfx9::can_implement(p, 2);
  REQUIRE(s.code() == StatusCode::kNotSupported);
  REQUIRE(s.message().find("2 GiB") != std::string::npos);
  REQUIRE(gfx9::can_implement(problem2d(2, 56, 56, 64, 64, 3, 3, 1, 1, 1), 2));
}
