// The attention device tests' harness: runs attention::Attention<Cfg> on random normal Q, K, V
// (O and LSE poisoned) and compares with the host reference in double
// (test/support/attention_reference.hpp).
//
//   double worst = test::run_attention<Cfg>(test::dense(b, h, h_kv, sq, sk, d), dev_chain, host_chain);
//
//   test::run_varlen<Cfg>(heads, heads_kv, {lengths of Q}, {lengths of K});   // packed, cu_seqlens
//
// Tolerances: O within 2^-7 of (|o| + the sum of p |v|) -- P is rounded to 16 bits on its way to
// the tensor cores -- and LSE within 2^-10 (1 + |lse|); a reference LSE of -inf (a query that sees
// no key) wants exactly -inf, and its O is 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "../support/device_check.hpp"
#include "attention_reference.hpp"
#include "tessera/attention/attention.hpp"

namespace tessera::test {

template <class T>
std::vector<T> random_tensor(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<T> v(n);
  for (auto& x : v) x = T(normal(rng));
  return v;
}

inline attention::Problem dense(int b, int h, int hk, int sq, int sk, int d, attention::Layout layout = attention::Layout::kBSHD,
                                int dv = 0) {
  return attention::Problem::dense(b, h, hk, sq, sk, d, layout, dv);
}

// Runs p (packed tensors) with the chain `dev` (its host twin `host` for the reference); returns the
// worst |error| / tolerance over O and LSE. Variable lengths: p's cu_seqlens are device copies of
// cu_q and cu_k.
template <class Cfg>
double run_attention(attention::Problem const& p, typename Cfg::Chain const& dev = {}, typename Cfg::Chain const& host = {},
                     std::vector<int> const& cu_q = {}, std::vector<int> const& cu_k = {}) {
  std::size_t const rows_q = p.variable() ? std::size_t(p.total_q) : std::size_t(p.batch) * p.seqlen_q;
  std::size_t const rows_k = p.variable() ? std::size_t(p.total_k) : std::size_t(p.batch) * p.seqlen_k;
  std::size_t const nq = rows_q * p.heads * p.head_dim, nk = rows_k * p.heads_kv * p.head_dim;
  std::size_t const nv = rows_k * p.heads_kv * p.head_dim_v, no = rows_q * p.heads * p.head_dim_v;
  using E = typename Cfg::Element;
  auto const q = random_tensor<E>(std::max<std::size_t>(nq, 1), 1), k = random_tensor<E>(std::max<std::size_t>(nk, 1), 2),
             v = random_tensor<E>(std::max<std::size_t>(nv, 1), 3);
  DeviceBuffer<E> dq(q), dk(k), dv(v), dout(std::max<std::size_t>(no, 1));
  DeviceBuffer<float> dlse(std::max<std::size_t>(rows_q * p.heads, 1));
  typename attention::Attention<Cfg>::Arguments args{p, dq.get(), dk.get(), dv.get(), dout.get(), dlse.get(), dev};
  Status const s = attention::Attention<Cfg>{}.run(args);
  INFO(s.message());
  REQUIRE(s.ok());
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const got = dout.to_host();
  auto const lse = dlse.to_host();
  auto const l = attention_lengths(p, cu_q, cu_k);
  auto const ref = attention_reference(p, l, q.data(), k.data(), v.data(), host, no);
  double worst = 0;
  int bad = 0;
  for (std::size_t i = 0; i < no; ++i) {
    double const tol = std::ldexp(std::fabs(ref.o[i]) + ref.mag[i], -7) + 1e-6;
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

// A stage of the tests' own: documents of 100 tokens that see only themselves.
struct SameDocument {
  TESSERA_HD float score(float x, attention::Coord const& c) const { return c.q / 100 == c.k / 100 ? x : -__builtin_inff(); }
  static constexpr bool modifies = false;
};
static_assert(!attention::ScoreChain<SameDocument>::modifies, "a mask of one's own that declares it keeps finite scores");

}  // namespace tessera::test
