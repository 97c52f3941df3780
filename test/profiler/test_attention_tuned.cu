// attention::Tuned over a header `tessera-profile emit` wrote at build time (from
// sample_attention_profile.json): the header compiles in a plain CUDA translation unit; the order in
// which a problem tries the entries (its own shape, then the nearest) needs no GPU; on a GPU, each
// problem runs with the entry the rules pick, under the profiled mask and under a chain of the
// application's own, and matches the host reference in double (test/support/attention_reference.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "../device/support/device_check.hpp"
#include "attention_reference.hpp"
#include "tessera/attention/masks.hpp"
#include "tessera/attention/tuned.hpp"
#include "tessera_attention_tuned_sample.hpp"  // generated: namespace tessera_attention_tuned_sample { bf16_hd128_causal, ... }

using namespace tessera;
namespace sample = tessera_attention_tuned_sample;

namespace {

using CausalChain = attention::ScoreChain<attention::Causal<attention::BottomRight>>;
using Causal = attention::Tuned<sample::bf16_hd128_causal, CausalChain>;
// A chain of the application's own on the table profiled without a mask: soft-capped scores, top-left causal.
using CappedChain = attention::ScoreChain<attention::Softcap, attention::Causal<attention::TopLeft>>;
using Capped = attention::Tuned<sample::bf16_hd128_none, CappedChain>;

attention::Problem problem(int b, int h, int hk, int sq, int sk, int d = 128) {
  return attention::Problem::dense(b, h, hk, sq, sk, d, attention::Layout::kBSHD);
}

// T on p (random normal Q, K, V; O and LSE poisoned) with chain `chain`, expecting entry `expect`;
// returns the worst |error| / tolerance over O (2^-7 of |o| + the sum of p |v|) and LSE (2^-10 of
// 1 + |lse|), as test/device/attention does.
template <class T>
double check(attention::Problem const& p, typename T::Chain const& chain, int expect) {
  std::mt19937 rng(std::uint32_t(p.seqlen_q * 31 + p.seqlen_k));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto random = [&](std::size_t n) {
    std::vector<bfloat16_t> v(n);
    for (auto& x : v) x = bfloat16_t(normal(rng));
    return v;
  };
  std::size_t const nq = std::size_t(p.batch) * p.seqlen_q * p.heads * p.head_dim, nk = std::size_t(p.batch) * p.seqlen_k * p.heads_kv * p.head_dim;
  std::size_t const no = std::size_t(p.batch) * p.seqlen_q * p.heads * p.head_dim_v, nl = std::size_t(p.batch) * p.heads * p.seqlen_q;
  auto const q = random(nq), k = random(nk), v = random(nk);
  test::DeviceBuffer<bfloat16_t> dq(q), dk(k), dv(v), dout(no);
  test::DeviceBuffer<float> dlse(nl);
  TESSERA_CUDA_REQUIRE(cudaMemset(dout.get(), 0xFF, no * sizeof(bfloat16_t)));
  TESSERA_CUDA_REQUIRE(cudaMemset(dlse.get(), 0xFF, nl * sizeof(float)));
  typename T::Arguments args{p, dq.get(), dk.get(), dv.get(), dout.get(), dlse.get(), chain};
  REQUIRE(T::select(args) == expect);
  Status const s = T::run(args);
  INFO(s.message());
  REQUIRE(s.ok());
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const o = dout.to_host();
  auto const lse = dlse.to_host();
  auto const ref = test::attention_reference(p, test::attention_lengths(p), q.data(), k.data(), v.data(), chain, no);
  double worst = 0;
  for (std::size_t i = 0; i < no; ++i) {
    double const e = std::fabs(double(o[i].to_float()) - ref.o[i]) / (std::ldexp(std::fabs(ref.o[i]) + ref.mag[i], -7) + 1e-6);
    worst = std::max(worst, std::isnan(e) ? 1e30 : e);
  }
  for (std::size_t i = 0; i < nl; ++i) {
    double const want = ref.lse[i];
    double const e = std::isinf(want) ? (std::isinf(lse[i]) && lse[i] < 0 ? 0.0 : 1e30) : std::fabs(lse[i] - want) / std::ldexp(1.0 + std::fabs(want), -10);
    worst = std::max(worst, std::isnan(e) ? 1e30 : e);
  }
  return worst;
}

}  // namespace

// The tables hold the sample's winners: causal's three problems in the order of their text
// ("batch=1 heads=8 ...", "batch=2 heads=16 ...", "batch=4 heads=32 ..."), the others one each.
static_assert(sample::bf16_hd128_causal.size == 3 && sample::bf16_hd128_none.size == 1 && sample::bf16_hd128_window.size == 1);
static_assert(sample::bf16_hd128_causal.entries[0].spec.bkv == 64 && sample::bf16_hd128_causal.entries[0].shape.seqlen_q == 300 &&
              sample::bf16_hd128_causal.entries[0].profiled_us == 20.5);
static_assert(sample::bf16_hd128_causal.entries[1].spec ==
              attention::spec_of<attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<128, 128>,
                                                   attention::Consumers<2>, attention::Stages<2>>>);
static_assert(std::is_same_v<Causal::Element, bfloat16_t> && std::is_same_v<Capped::Chain, CappedChain> && Causal::size == 3);

TEST_CASE("attention::Tuned tries a problem's own shape first, then the nearest", "[tuned][attention]") {
  CHECK(Causal::order(problem(2, 16, 4, 1024, 1024)) == std::array<int, 3>{1, 0, 2});  // its own, then by distance
  CHECK(Causal::order(problem(4, 32, 8, 4096, 4096))[0] == 2);
  CHECK(Causal::order(problem(1, 4, 2, 300, 300))[0] == 0);   // nearest: batch x heads 8, 300 keys
  CHECK(Causal::order(problem(8, 32, 8, 2048, 2048))[0] == 2);
  // The same sizes but other K/V heads: not its shape, yet at distance 0.
  CHECK_FALSE(attention::same_shape(sample::bf16_hd128_causal.entries[1].shape, problem(2, 16, 16, 1024, 1024)));
  CHECK(Causal::order(problem(2, 16, 16, 1024, 1024))[0] == 1);
}

TEST_CASE("attention::Tuned runs each problem with its entry and computes it", "[tuned][attention][gpu]") {
  test::require_gpu();
  CHECK(check<Causal>(problem(1, 4, 2, 300, 300), {}, 0) <= 1.0);      // the nearest: 128 x 64
  CHECK(check<Causal>(problem(1, 2, 1, 200, 333), {}, 0) <= 1.0);      // sq != sk, bottom-right
  CHECK(check<Causal>(problem(2, 16, 4, 1024, 1024), {}, 1) <= 1.0);   // its own: 128 x 128
  CHECK(check<Capped>(problem(1, 4, 4, 257, 129), CappedChain{{30.0f}, {}}, 0) <= 1.0);  // the application's chain
}

TEST_CASE("attention::Tuned refuses a problem no entry can run, with the first entry's reason", "[tuned][attention][gpu]") {
  test::require_gpu();
  test::DeviceBuffer<bfloat16_t> buf(1 << 16);
  Causal::Arguments args{problem(1, 2, 2, 64, 64, 64), buf.get(), buf.get(), buf.get(), buf.get()};
  CHECK(Causal::select(args) == -1);
  Status const s = Causal::run(args);
  CHECK_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("attention::Tuned: no entry of the table can run this problem; the first entry says:") &&
                              Catch::Contains("are not the Config's HeadDim<128, 128>"));
}
