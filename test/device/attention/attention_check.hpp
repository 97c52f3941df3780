// The attention device tests' harness: runs attention::Attention<Cfg> on random normal Q, K, V
// (O and LSE poisoned) and compares with the host reference in double
// (test/support/attention_reference.hpp).
//
//   double worst = test::run_attention<Cfg>(test::dense(b, h, h_kv, sq, sk, d), dev_chain, host_chain);
//
//   test::run_varlen<Cfg>(heads, heads_kv, {lengths of Q}, {lengths of K});   // packed, cu_seqlens
//
// Tolerances: O within 2^-7 of (|o| + the sum of p |v|) -- P is rounded to 16 bits on its way to
// the tensor cores; 2^-4 for fp8 -- and LSE within 2^-10 (1 + |lse|); a reference LSE of -inf (a
// query that sees no key) wants exactly -inf, and its O is 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../support/device_check.hpp"
#include "attention_reference.hpp"
#include "tessera/attention/attention.hpp"

namespace tessera::test {

// A random normal tensor stored in E (as x / scale: fp8's per-tensor scale) and the values it
// stands for (stored times scale), which the reference reads.
template <class E>
struct Tensor {
  std::vector<E> stored;
  std::vector<float> value;
};
template <class E>
Tensor<E> random_tensor(std::size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Tensor<E> t{std::vector<E>(n), std::vector<float>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    t.stored[i] = E(normal(rng) / scale);
    t.value[i] = float(t.stored[i]) * scale;
  }
  return t;
}

// Runs p (packed tensors) with the chain `dev` (its host twin `host` for the reference); returns the
// worst |error| / tolerance over O and LSE: O within 2^-7 of (|o| + the sum of p |v|) -- P is
// rounded to 16 bits on its way to the tensor cores; 2^-4 for fp8, whose P has 3 mantissa bits --
// and LSE within 2^-10 (1 + |lse|). Variable lengths: p's cu_seqlens are device copies of cu_q and
// cu_k. fp8: Q, K and V stored with the scales 1/2, 4 and 1/8 (Arguments::scale_q ...).
template <class Cfg>
double run_attention(attention::Problem const& p, typename Cfg::Chain const& dev = {}, typename Cfg::Chain const& host = {},
                     std::vector<int> const& cu_q = {}, std::vector<int> const& cu_k = {}) {
  std::size_t const rows_q = p.variable() ? std::size_t(p.total_q) : std::size_t(p.batch) * p.seqlen_q;
  std::size_t const rows_k = p.variable() ? std::size_t(p.total_k) : std::size_t(p.batch) * p.seqlen_k;
  std::size_t const nq = rows_q * p.heads * p.head_dim, nk = rows_k * p.heads_kv * p.head_dim;
  std::size_t const nv = rows_k * p.heads_kv * p.head_dim_v, no = rows_q * p.heads * p.head_dim_v;
  using E = typename Cfg::Element;
  constexpr bool fp8 = Cfg::fp8;
  float const sq = fp8 ? 0.5f : 1.0f, sk = fp8 ? 4.0f : 1.0f, sv = fp8 ? 0.125f : 1.0f;
  auto const q = random_tensor<E>(std::max<std::size_t>(nq, 1), 1, sq), k = random_tensor<E>(std::max<std::size_t>(nk, 1), 2, sk),
             v = random_tensor<E>(std::max<std::size_t>(nv, 1), 3, sv);
  DeviceBuffer<E> dq(q.stored), dk(k.stored), dv(v.stored);
  DeviceBuffer<typename Cfg::Output> dout(std::max<std::size_t>(no, 1));
  DeviceBuffer<float> dlse(std::max<std::size_t>(rows_q * p.heads, 1));
  typename attention::Attention<Cfg>::Arguments args{p, dq.get(), dk.get(), dv.get(), dout.get(), dlse.get(), dev, sq, sk, sv};
  Status const s = attention::Attention<Cfg>{}.run(args);
  INFO(s.message());
  REQUIRE(s.ok());
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const got = dout.to_host();
  auto const lse = dlse.to_host();
  auto const l = attention_lengths(p, cu_q, cu_k);
  auto const ref = attention_reference(p, l, q.value.data(), k.value.data(), v.value.data(), host, no);
  double worst = 0;
  int bad = 0;
  for (std::size_t i = 0; i < no; ++i) {
    double const tol = std::ldexp(std::fabs(ref.o[i]) + ref.mag[i], fp8 ? -4 : -7) + 1e-6;
    double const e = std::fabs(double(got[i].to_float()) - ref.o[i]) / tol;
    if (!(e <= 1.0) && ++bad <= 5) UNSCOPED_INFO("O[" << i << "] = " << got[i].to_float() << ", want " << ref.o[i]);
    worst = std::max(worst, std::isnan(e) ? 1e30 : e);
  }
  for (std::size_t i = 0; i < ref.lse.size(); ++i) {
    double const want = ref.lse[i];
    double const e = std::isinf(want) ? (std::isinf(lse[i]) && lse[i] < 0 ? 0.0 : 1e30)
                                      : std::fabs(lse[i] - want) / std::ldexp(1.0 + std::fabs(want), -10);
    if (!(e <= 1.0) && ++bad <= 10) UNSCOPED_INFO("LSE[" << i << "] = " << lse[i] << ", want " << want);
    worst = std::max(worst, std::isnan(e) ? 1e30 : e);
  }
  INFO("batch " << p.batch << " heads " << p.heads << "/" << p.heads_kv << " sq " << p.seqlen_q << " sk " << p.seqlen_k << " d "
                << p.head_dim << "/" << p.head_dim_v);
  CHECK(worst <= 1.0);
  return worst;
}

inline attention::Problem dense(int b, int h, int hk, int sq, int sk, int d, attention::Layout layout = attention::Layout::kBSHD,
                                int dv = 0) {
  return attention::Problem::dense(b, h, hk, sq, sk, d, layout, dv);
}

// Packed sequences of lengths lq[i] (queries) and lk[i] (keys), BSHD, through run_attention.
template <class Cfg>
void run_varlen(int heads, int heads_kv, std::vector<int> const& lq, std::vector<int> const& lk, typename Cfg::Chain const& dev = {},
                typename Cfg::Chain const& host = {}) {
  std::vector<int> cu_q{0}, cu_k{0};
  for (std::size_t i = 0; i < lq.size(); ++i) cu_q.push_back(cu_q.back() + lq[i]), cu_k.push_back(cu_k.back() + lk[i]);
  DeviceBuffer<int> dq(cu_q), dk(cu_k);
  attention::Problem const p =
      attention::Problem::variable_lengths(int(lq.size()), heads, heads_kv, dq.get(), dk.get(), *std::max_element(lq.begin(), lq.end()),
                                           *std::max_element(lk.begin(), lk.end()), cu_q.back(), cu_k.back(), Cfg::D, Cfg::Dv);
  run_attention<Cfg>(p, dev, host, cu_q, cu_k);
}

// A kernel's refusals: run(args) on a problem the kernel must refuse, over a buffer that a launch
// would write, returns the message; nothing_written() says the buffer is as it was. The checks
// every kernel shares are common(); a kernel's own follow them.
//
//   test::Refusals<Cfg> r;
//   r.common();
//   CHECK_THAT(r.message(problem), Catch::Contains("..."));
//   r.nothing_written();
template <class Cfg>
struct Refusals {
  using E = typename Cfg::Element;
  DeviceBuffer<E> buf{std::size_t(1) << 20};
  std::vector<E> const before = buf.to_host();

  std::string message(attention::Problem const& p, E* o = nullptr, typename Cfg::Chain const& chain = {}) {
    typename attention::Attention<Cfg>::Arguments args{p, buf.get(), buf.get(), buf.get(), o != nullptr ? o : buf.get(), nullptr, chain};
    return attention::Attention<Cfg>{}.run(args).message();
  }
  // Head dims unlike the Config's, heads not a multiple of heads_kv, an O not 16-byte aligned.
  void common() {
    int const other = Cfg::D == 64 ? 128 : 64;
    CHECK_THAT(message(dense(1, 2, 2, 64, 64, other)), Catch::Contains("are not the Config's HeadDim<" + std::to_string(Cfg::D)));
    CHECK_THAT(message(dense(1, 6, 4, 64, 64, Cfg::D)), Catch::Contains("heads = 6 is not a multiple of heads_kv = 4"));
    CHECK_THAT(message(dense(1, 2, 2, 64, 64, Cfg::D), buf.get() + 1), Catch::Contains("16-byte aligned"));
  }
  void nothing_written() {
    TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
    CHECK(std::memcmp(buf.to_host().data(), before.data(), before.size() * sizeof(E)) == 0);
  }
};

// A stage of the test's own: documents of 100 tokens that see only themselves.
struct SameDocument {
  TESSERA_HD float score(float x, attention::Coord const& c) const { return c.q / 100 == c.k / 100 ? x : -__builtin_inff(); }
  static constexpr bool modifies = false;
};
static_assert(!attention::ScoreChain<SameDocument>::modifies, "a mask of one's own that declares it keeps finite scores");

}  // namespace tessera::test
