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
// fp8 (e4m3 Q, K and V, O in bf16) and the sm80 kernel's table.
using Fp8 = attention::Tuned<sample::e4m3_hd128_causal, CausalChain>;
using Sm80 = attention::Tuned<sample::bf16_hd128_none_sm80>;

attention::Problem problem(int b, int h, int hk, int sq, int sk, int d = 128) {
  return attention::Problem::dense(b, h, hk, sq, sk, d, attention::Layout::kBSHD);
}

// T on p (random normal Q, K, V; O and LSE poisoned) with chain `chain`, expecting entry `expect`;
// returns the worst |error| / tolerance over O (2^-7 of |o| + the sum of p |v|; 2^-4 for fp8) and
// LSE (2^-10 of 1 + |lse|), as test/device/attention does. fp8: Q, K and V stored with the device
// test's scales 1/2, 4 and 1/8, the reference on the values they stand for. A packed batch: p's
// cu_seqlens are device copies of cu_q and cu_k.
template <class T>
double check(attention::Problem const& p, typename T::Chain const& chain, int expect, std::vector<int> const& cu_q = {},
             std::vector<int> const& cu_k = {}) {
  using E = typename T::Element;
  using O = typename T::Output;
  constexpr bool fp8 = std::is_same_v<E, float8_e4m3_t>;
  float const scale_q = fp8 ? 0.5f : 1.0f, scale_k = fp8 ? 4.0f : 1.0f, scale_v = fp8 ? 0.125f : 1.0f;
  std::mt19937 rng(std::uint32_t(p.seqlen_q * 31 + p.seqlen_k));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto random = [&](std::size_t n, float scale, std::vector<float>& value) {
    std::vector<E> v(std::max<std::size_t>(n, 1));
    value.resize(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] = E(normal(rng) / scale);
      value[i] = float(v[i]) * scale;
    }
    return v;
  };
  std::size_t const rows_q = p.variable() ? std::size_t(p.total_q) : std::size_t(p.batch) * p.seqlen_q;
  std::size_t const rows_k = p.variable() ? std::size_t(p.total_k) : std::size_t(p.batch) * p.seqlen_k;
  std::size_t const nq = rows_q * p.heads * p.head_dim, nk = rows_k * p.heads_kv * p.head_dim;
  std::size_t const no = rows_q * p.heads * p.head_dim_v, nl = rows_q * p.heads;
  std::vector<float> qv, kv, vv;
  auto const q = random(nq, scale_q, qv), k = random(nk, scale_k, kv), v = random(nk, scale_v, vv);
  test::DeviceBuffer<E> dq(q), dk(k), dv(v);
  test::DeviceBuffer<O> dout(std::max<std::size_t>(no, 1));
  test::DeviceBuffer<float> dlse(std::max<std::size_t>(nl, 1));
  TESSERA_CUDA_REQUIRE(cudaMemset(dout.get(), 0xFF, no * sizeof(O)));
  TESSERA_CUDA_REQUIRE(cudaMemset(dlse.get(), 0xFF, nl * sizeof(float)));
  typename T::Arguments args{p, dq.get(), dk.get(), dv.get(), dout.get(), dlse.get(), chain, scale_q, scale_k, scale_v};
  REQUIRE(T::select(args) == expect);
  Status const s = T::run(args);
  INFO(s.message());
  REQUIRE(s.ok());
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const o = dout.to_host();
  auto const lse = dlse.to_host();
  auto const ref = test::attention_reference(p, test::attention_lengths(p, cu_q, cu_k), qv.data(), kv.data(), vv.data(), chain, no);
  double worst = 0;
  for (std::size_t i = 0; i < no; ++i) {
    double const tol = std::ldexp(std::fabs(ref.o[i]) + ref.mag[i], fp8 ? -4 : -7) + 1e-6;
    double const e = std::fabs(double(o[i].to_float()) - ref.o[i]) / tol;
    worst = std::max(worst, std::isnan(e) ? 1e30 : e);
  }
  for (std::size_t i = 0; i < nl; ++i) {
    double const want = ref.lse[i];
    double const e = std::isinf(want) ? (std::isinf(lse[i]) && lse[i] < 0 ? 0.0 : 1e30) : std::fabs(lse[i] - want) / std::ldexp(1.0 + std::fabs(want), -10);
    worst = std::max(worst, std::isnan(e) ? 1e30 : e);
  }
  return worst;
}

// A packed batch of sequences of lq[i] queries and lk[i] keys (BSHD token rows) through T.
template <class T>
double check_packed(int heads, int heads_kv, std::vector<int> const& lq, std::vector<int> const& lk, typename T::Chain const& chain,
                    int expect) {
  std::vector<int> cu_q{0}, cu_k{0};
  for (std::size_t i = 0; i < lq.size(); ++i) cu_q.push_back(cu_q.back() + lq[i]), cu_k.push_back(cu_k.back() + lk[i]);
  test::DeviceBuffer<int> dq(cu_q), dk(cu_k);
  attention::Problem const p = attention::Problem::variable_lengths(int(lq.size()), heads, heads_kv, dq.get(), dk.get(),
                                                                    *std::max_element(lq.begin(), lq.end()),
                                                                    *std::max_element(lk.begin(), lk.end()), cu_q.back(), cu_k.back(), 128);
  return check<T>(p, chain, expect, cu_q, cu_k);
}

}  // namespace

// The tables hold the sample's winners: causal's three problems in the order of their text
// ("batch=1 heads=8 ...", "batch=2 heads=16 ...", "batch=4 heads=32 ..."); none's fixed problem and
// its packed batch of variable lengths ("heads=8 ... seqlens=500,0,1,130"); the others one each.
static_assert(sample::bf16_hd128_causal.size == 3 && sample::bf16_hd128_none.size == 2 && sample::bf16_hd128_window.size == 1);
static_assert(!sample::bf16_hd128_none.entries[0].shape.variable && sample::bf16_hd128_none.entries[1].shape.variable &&
              sample::bf16_hd128_none.entries[1].shape.batch == 4 && sample::bf16_hd128_none.entries[1].shape.seqlen_q == 500);
static_assert(sample::bf16_hd128_none_sm80.size == 1 && sample::bf16_hd128_none_sm80.entries[0].spec.arch_cc == 80 &&
              sample::bf16_hd128_none_sm80.entries[0].spec.warps == 4);
static_assert(std::is_same_v<Fp8::Element, float8_e4m3_t> && std::is_same_v<Fp8::Output, bfloat16_t> &&
              std::is_same_v<Sm80::Element, bfloat16_t> && std::is_same_v<Sm80::Output, bfloat16_t>);
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

TEST_CASE("attention::Tuned tries the entries of a problem's kind of lengths first", "[tuned][attention]") {
  using None = attention::Tuned<sample::bf16_hd128_none>;
  int const cu[2] = {0, 0};  // (never read: order needs no device)
  attention::Problem packed = attention::Problem::variable_lengths(4, 8, 2, cu, cu, 500, 500, 631, 631, 128);
  CHECK(attention::same_shape(sample::bf16_hd128_none.entries[1].shape, packed));
  CHECK(None::order(packed) == std::array<int, 2>{1, 0});
  // Fixed lengths of the packed batch's shape: the fixed entry first, though the other is nearer.
  CHECK_FALSE(attention::same_shape(sample::bf16_hd128_none.entries[1].shape, problem(4, 8, 2, 500, 500)));
  CHECK(None::order(problem(4, 8, 2, 500, 500)) == std::array<int, 2>{0, 1});
  // Another packed batch: the nearest of its kind.
  packed.batch = 64, packed.seqlen_q = packed.seqlen_k = 4096;
  CHECK(None::order(packed)[0] == 1);
}

TEST_CASE("attention::Tuned runs each problem with its entry and computes it", "[tuned][attention][gpu]") {
  test::require_gpu();
  CHECK(check<Causal>(problem(1, 4, 2, 300, 300), {}, 0) <= 1.0);      // the nearest: 128 x 64
  CHECK(check<Causal>(problem(1, 2, 1, 200, 333), {}, 0) <= 1.0);      // sq != sk, bottom-right
  CHECK(check<Causal>(problem(2, 16, 4, 1024, 1024), {}, 1) <= 1.0);   // its own: 128 x 128
  CHECK(check<Capped>(problem(1, 4, 4, 257, 129), CappedChain{{30.0f}, {}}, 0) <= 1.0);  // the application's chain
}

TEST_CASE("attention::Tuned runs fp8, the sm80 kernel's table and packed batches", "[tuned][attention][gpu]") {
  test::require_gpu();
  CHECK(check<Fp8>(problem(1, 4, 2, 300, 300), {}, 0) <= 1.0);  // e4m3 with per-tensor scales, O in bf16
  CHECK(check<Sm80>(problem(1, 3, 1, 200, 77), {}, 0) <= 1.0);  // the sm80 kernel (it runs on Hopper too)
  // A packed batch with an empty and a length-1 sequence: its own entry; a causal one through the
  // fixed-length table (no entry of its kind: the nearest).
  CHECK(check_packed<attention::Tuned<sample::bf16_hd128_none>>(8, 2, {500, 0, 1, 130}, {500, 0, 1, 130}, {}, 1) <= 1.0);
  CHECK(check_packed<Causal>(4, 4, {1, 77, 300, 0}, {5, 77, 200, 3}, {}, 0) <= 1.0);
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
