// conv::Tuned over a header `tessera-profile emit` wrote at build time (from
// sample_conv_profile.json): the header compiles in a plain CUDA translation unit; the order in
// which a problem tries the entries (its own, then the nearest) and an entry's K split need no
// GPU; on a GPU, each problem runs with the entry the rules pick, or the fallback Config where no
// entry can take it, and matches a host direct convolution, with the plain and a fused epilogue.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "../device/conv/conv_check.hpp"
#include "../device/support/device_check.hpp"
#include "tessera/conv/tuned.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera_conv_tuned_sample.hpp"  // generated: namespace tessera_conv_tuned_sample { bf16_fprop, bf16_wgrad }

using namespace tessera;

namespace {

// "n=2 h=20 w=20 c=64 k=64 r=3 s=3 pad=1" and the like: a 2-D problem with `pad` on each side.
constexpr conv::Problem problem(int n, int h, int w, int c, int k, int r, int pad) {
  conv::Problem p;
  p.n = n, p.h = h, p.w = w, p.c = c, p.k = k, p.r = p.s = r;
  p.pad_before = p.pad_after = {0, pad, pad};
  return p;
}

using Fprop = conv::Tuned<tessera_conv_tuned_sample::bf16_fprop>;
using Wgrad = conv::Tuned<tessera_conv_tuned_sample::bf16_wgrad>;
using BiasRelu = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::Relu>;
using FusedFprop = conv::Tuned<tessera_conv_tuned_sample::bf16_fprop, BiasRelu>;

// T on problem p (random data, the output poisoned; a bias of the output's channels where T's
// epilogue has one), expecting entry `expect` (T::fallback: the fallback Config); returns the worst
// |error| / tolerance against the host's direct convolution.
template <class T>
double check(conv::Problem const& p, int expect) {
  constexpr conv::Direction dir = T::direction;
  constexpr bool fused = !std::is_same_v<typename T::Epilogue, epilogue::Identity>;
  std::mt19937 rng(std::uint32_t(p.n * 7 + p.h * 3 + p.c + p.k));
  std::uniform_int_distribution<int> v(-7, 7);
  auto values = [&](std::int64_t count) {
    std::vector<bfloat16_t> x(static_cast<std::size_t>(count));
    for (auto& e : x) {
      int const r = v(rng);
      e = bfloat16_t(float(r == 0 ? 1 : r) / 8.0f);
    }
    return x;
  };
  // The two tensors the direction reads (the third written, poisoned on the device).
  std::vector<bfloat16_t> const x = dir != conv::Direction::kDgrad ? values(p.input_elements()) : std::vector<bfloat16_t>{};
  std::vector<bfloat16_t> const w = dir != conv::Direction::kWgrad ? values(p.filter_elements()) : std::vector<bfloat16_t>{};
  std::vector<bfloat16_t> const dy = dir != conv::Direction::kFprop ? values(p.output_elements()) : std::vector<bfloat16_t>{};
  auto const bias = values(p.k);
  test::DeviceBuffer<bfloat16_t> dx(std::size_t(p.input_elements())), dw(std::size_t(p.filter_elements())),
      ddy(std::size_t(p.output_elements())), dbias(bias);
  for (auto [host, buffer] : {std::pair{&x, &dx}, std::pair{&w, &dw}, std::pair{&dy, &ddy}})
    if (!host->empty()) TESSERA_CUDA_REQUIRE(cudaMemcpy(buffer->get(), host->data(), host->size() * sizeof(bfloat16_t), cudaMemcpyHostToDevice));
  typename T::Arguments args{p, dx.get(), dw.get(), ddy.get()};
  if constexpr (fused) args.epilogue = BiasRelu::make(dbias.get());
  REQUIRE(T::select(args) == expect);
  std::size_t const bytes = T::workspace_size(args);
  test::DeviceBuffer<char> workspace(bytes > 0 ? bytes : 1);
  Status const s = T::run(args, bytes > 0 ? workspace.get() : nullptr);
  INFO(s.message());
  REQUIRE(s.ok());
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const out = dir == conv::Direction::kFprop ? ddy.to_host() : dir == conv::Direction::kDgrad ? dx.to_host() : dw.to_host();
  auto const ref = test::conv_check::direct(p, dir, x, w, dy);
  auto const want = [&](std::size_t i) {
    double const v = ref.want[i];
    if constexpr (fused) return std::max(0.0, v + double(bias[i % std::size_t(p.k)].to_float()));
    else return v;
  };
  return test::conv_check::worst_error(out, want, [&](std::size_t i) { return ref.mag[i]; }, 7, 14);
}

}  // namespace

// The tables hold the sample's winners: Fprop's three problems in the order of their text
// ("n=2 h=10 ...", "n=2 h=12 ...", "n=2 h=20 ..."), Wgrad's one.
static_assert(tessera_conv_tuned_sample::bf16_fprop.size == 3 && tessera_conv_tuned_sample::bf16_wgrad.size == 1);
static_assert(tessera_conv_tuned_sample::bf16_fprop.entries[0].spec.gemm.arch_cc == 80 &&
              tessera_conv_tuned_sample::bf16_fprop.entries[0].problem.c == 40);
static_assert(tessera_conv_tuned_sample::bf16_fprop.entries[2].spec ==
              conv::ConfigSpec{conv::Direction::kFprop,
                               conv::Config<arch::Sm90, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Fprop, gemm::BlockTile<128, 64, 64>,
                                            gemm::Warpgroups<2>, gemm::Stages<8>>::Gemm::spec});
static_assert(tessera_conv_tuned_sample::bf16_wgrad.entries[0].spec.direction == conv::Direction::kWgrad &&
              tessera_conv_tuned_sample::bf16_wgrad.entries[0].profiled_us == 12.5);
static_assert(Fprop::direction == conv::Direction::kFprop && Fprop::fallback == 3);

TEST_CASE("conv::Tuned tries a problem's own entry first, then the nearest", "[tuned][conv]") {
  CHECK(Fprop::order(problem(2, 20, 20, 64, 64, 3, 1)) == std::array<int, 3>{2, 1, 0});  // its own (A), then by distance
  CHECK(Fprop::order(problem(2, 12, 12, 128, 128, 3, 1))[0] == 1);                       // B's own
  CHECK(Fprop::order(problem(1, 20, 20, 64, 64, 3, 1))[0] == 2);                         // nearest: A (M half of A's)
  // The same implicit GEMM as A (M, N, K) but another problem: A still first, by distance 0.
  conv::Problem other = problem(2, 20, 20, 64, 64, 3, 1);
  other.pad_before = {0, 2, 2};
  other.pad_after = {0, 0, 0};
  CHECK(Fprop::order(other)[0] == 2);
  CHECK_FALSE(conv::same_problem(other, tessera_conv_tuned_sample::bf16_fprop.entries[2].problem));
  CHECK(conv::same_problem(problem(2, 20, 20, 64, 64, 3, 1), tessera_conv_tuned_sample::bf16_fprop.entries[2].problem));
}

// An entry's K split applies where the caller asked for the automatic one (split_k = 0, the
// default of Tuned::Arguments); a caller's own split stays.
using SplitCfg = conv::Config<arch::Sm90, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Wgrad, gemm::BlockTile<128, 256, 64>,
                              gemm::Warpgroups<2>, gemm::Stages<4>>;
inline constexpr conv::TunedTable<2> split{{{problem(32, 56, 56, 64, 64, 3, 1), {conv::Direction::kWgrad, SplitCfg::Gemm::spec}, 101.5, 6},
                                            {problem(32, 28, 28, 128, 128, 3, 1), {conv::Direction::kWgrad, SplitCfg::Gemm::spec}, 80.0}}};

TEST_CASE("conv::Tuned applies an entry's K split where the caller left it automatic", "[tuned][conv]") {
  using S = conv::Tuned<split>;
  S::Arguments args{};
  CHECK(args.split_k == 0);
  CHECK(S::entry_arguments<0>(args).split_k == 6);
  CHECK(S::entry_arguments<1>(args).split_k == 0);
  args.split_k = 3;
  CHECK(S::entry_arguments<0>(args).split_k == 3);
  CHECK(S::fallback_arguments(args).split_k == 3);
}

TEST_CASE("conv::Tuned runs each problem with its entry and computes it", "[tuned][conv][gpu]") {
  test::require_gpu();
  CHECK(check<Fprop>(problem(2, 20, 20, 64, 64, 3, 1), 2) <= 1.0);   // its own entry: sm90 128 x 64, 8 stages
  CHECK(check<Fprop>(problem(1, 20, 20, 64, 64, 3, 1), 2) <= 1.0);   // the nearest
  CHECK(check<Fprop>(problem(2, 12, 12, 128, 128, 3, 1), 1) <= 1.0); // B's: sm90 128 x 128, 6 stages
  CHECK(check<FusedFprop>(problem(2, 20, 20, 64, 64, 3, 1), 2) <= 1.0);  // with bias + ReLU
  CHECK(check<Wgrad>(problem(2, 20, 20, 64, 64, 3, 1), 0) <= 1.0);
}

// C / groups = 40: the Hopper entries (B's and A's, nearer) refuse it, the sm80 entry takes it; a
// Wgrad table with only a Hopper entry falls back to the sm80 Config.
TEST_CASE("conv::Tuned passes over entries that cannot run a problem, then falls back", "[tuned][conv][gpu]") {
  test::require_gpu();
  conv::Problem const odd = problem(2, 12, 12, 40, 128, 3, 1);
  REQUIRE(Fprop::order(odd)[2] == 0);  // the sm80 entry is the farthest
  CHECK(check<Fprop>(odd, 0) <= 1.0);
  CHECK(check<Wgrad>(problem(2, 12, 12, 40, 64, 3, 1), Wgrad::fallback) <= 1.0);
}

TEST_CASE("conv::Tuned refuses a problem neither an entry nor the fallback can run, with their reasons", "[tuned][conv][gpu]") {
  test::require_gpu();
  Fprop::Arguments args{problem(2, 20, 20, 64, 64, 3, 1)};  // null tensors
  CHECK(Fprop::select(args) == -1);
  Status const s = Fprop::run(args);
  CHECK_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("no entry of the table can run this problem, nor the fallback Config") &&
                              Catch::Contains("the fallback says") && Catch::Contains("one is null"));
}
