// 07_attention: causal grouped-query attention (GQA) with a score stage of our own, fused into the
// attention kernel: O = softmax(causal(Q K^T / sqrt(d) + bias[head][bucket(distance)])) V, where
// the bias is a learned relative-position bias in T5's manner (a table of 32 buckets per head:
// one per distance up to 15, then two per doubling).
//
// A score stage is any type with `float score(float x, Coord const&) const`: it sees each score in
// natural units with its batch entry, head, query and key positions and the sequences' lengths,
// and returns the new score. attention::ScoreChain runs the stages in order; Causal<BottomRight>
// then masks keys past each query's aligned position, and the kernel skips the key blocks the mask
// leaves empty (Causal says which through its block() and keys(); a stage that only modifies
// scores needs neither). Our stage declares `masks = false`: it never returns -infinity.
//
// It checks a small problem against a host reference in double (sq != sk, so the bottom-right
// alignment matters), then times a GQA prefill (batch 2, 32 query heads sharing 8 K/V heads,
// 4096 tokens, head dim 128) with the stage and without it, and prints TFLOP/s (FlashAttention's
// count: 4 b h s^2 d, halved for causal). A stage that changes scores runs on every score: on an
// H100 (2026-11-26, f764f03) this one took 1618 us against 430 without it (a load from the table
// a score); an earlier kernel took 2232 against 454, and 945 with the bias read from a table per
// distance (the buckets expanded on the host; docs/performance.md).
// The Hopper kernel needs code built for sm_90a (CMAKE_CUDA_ARCHITECTURES=90a); elsewhere
// can_implement says why and the example stops there.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../common/example_util.hpp"
#include "tessera/attention/attention.hpp"
#include "tessera/attention/masks.hpp"

using namespace tessera;

// The stage: score + table[head][bucket(distance)], distance = the aligned query position minus
// the key's (>= 0 for every key the causal mask keeps). Host and device (TESSERA_HD): the host
// reference below calls the same code.
struct RelativePositionBias {
  static constexpr int kBuckets = 32;
  float const* table = nullptr;  // [heads][kBuckets], in the memory the kernel runs in
  static constexpr bool masks = false;  // adds a finite value: never masks (-infinity stays)

  TESSERA_HD static int bucket(int distance) {
    if (distance < 16) return distance < 0 ? 0 : distance;
    // octave: 2^octave <= distance < 2^(octave + 1), from the leading zeros (a loop over the
    // octaves, the obvious form, runs on every score: keep a stage's work per score small).
#if defined(__CUDA_ARCH__)
    int const octave = 31 - __clz(distance);
#else
    int const octave = 31 - __builtin_clz(unsigned(distance));
#endif
    int const b = 16 + 2 * (octave - 4) + ((distance >> (octave - 1)) & 1);
    return b < kBuckets ? b : kBuckets - 1;
  }
  TESSERA_HD float score(float x, attention::Coord const& c) const {
    int const distance = c.q + (c.k_len - c.q_len) - c.k;
    return x + table[c.head * kBuckets + bucket(distance)];
  }
};

using Chain = attention::ScoreChain<RelativePositionBias, attention::Causal<attention::BottomRight>>;
using Plain = attention::ScoreChain<attention::Causal<attention::BottomRight>>;
template <class C>
using Cfg = attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<128, 128>, attention::Consumers<2>,
                              attention::Stages<2>, C>;

namespace {

// Q, K, V (BSHD, random multiples of 1/64), O and the bias table on the device.
struct Tensors {
  attention::Problem p;
  std::vector<bfloat16_t> q, k, v;
  std::vector<float> table;
  bfloat16_t *d_q, *d_k, *d_v, *d_o;
  float* d_table;
  explicit Tensors(attention::Problem const& problem)
      : p(problem),
        q(example::random_bf16(std::size_t(p.batch) * p.seqlen_q * p.heads * p.head_dim, 1)),
        k(example::random_bf16(std::size_t(p.batch) * p.seqlen_k * p.heads_kv * p.head_dim, 2)),
        v(example::random_bf16(std::size_t(p.batch) * p.seqlen_k * p.heads_kv * p.head_dim_v, 3)) {
    for (bfloat16_t b : example::random_bf16(std::size_t(p.heads) * RelativePositionBias::kBuckets, 4)) table.push_back(float(b) / 2);
    d_q = example::to_device(q);
    d_k = example::to_device(k);
    d_v = example::to_device(v);
    d_o = example::device_array<bfloat16_t>(std::size_t(p.batch) * p.seqlen_q * p.heads * p.head_dim_v);
    d_table = example::to_device(table);
  }
  ~Tensors() {
    for (void* x : {(void*)d_q, (void*)d_k, (void*)d_v, (void*)d_o, (void*)d_table}) example::gpu_free(x);
  }
  Tensors(Tensors const&) = delete;
  Tensors& operator=(Tensors const&) = delete;
  attention::Attention<Cfg<Chain>>::Arguments arguments() const {
    return {p, d_q, d_k, d_v, d_o, nullptr, Chain{RelativePositionBias{d_table}, {}}};
  }
};

// The host reference: each query's softmax over its whole row of scores, in double, through the
// same chain (with the host's copy of the table); O within 2^-7 of |o| + sum p |v| (P is rounded to
// bf16 on its way to the tensor cores, O on its way out). Returns the exit status.
int check(Tensors const& t) {
  attention::Problem const& p = t.p;
  std::vector<bfloat16_t> const o = example::to_host(t.d_o, std::size_t(p.batch) * p.seqlen_q * p.heads * p.head_dim_v);
  Chain const host{RelativePositionBias{t.table.data()}, {}};
  double const scale = p.softmax_scale();
  int bad = 0;
  double worst = 0;
  std::vector<double> s(std::size_t(p.seqlen_k));
  for (int b = 0; b < p.batch; ++b)
    for (int h = 0; h < p.heads; ++h)
      for (int i = 0; i < p.seqlen_q; ++i) {
        int const hk = h / p.group();
        double top = -INFINITY;
        for (int j = 0; j < p.seqlen_k; ++j) {
          double dot = 0;
          for (int d = 0; d < p.head_dim; ++d)
            dot += double(float(t.q[std::size_t(p.q.offset(b, i, h) + d)])) * double(float(t.k[std::size_t(p.k.offset(b, j, hk) + d)]));
          s[std::size_t(j)] = host.score(float(dot * scale), attention::Coord{b, h, i, j, p.seqlen_q, p.seqlen_k});
          top = std::max(top, s[std::size_t(j)]);
        }
        double sum = 0;
        for (int j = 0; j < p.seqlen_k; ++j) sum += top == -INFINITY ? 0.0 : std::exp(s[std::size_t(j)] - top);
        for (int d = 0; d < p.head_dim_v; ++d) {
          double want = 0, magnitude = 0;
          for (int j = 0; j < p.seqlen_k && sum > 0; ++j) {
            double const w = std::exp(s[std::size_t(j)] - top) / sum, x = double(float(t.v[std::size_t(p.v.offset(b, j, hk) + d)]));
            want += w * x;
            magnitude += w * std::fabs(x);
          }
          double const got = double(float(o[std::size_t(p.o.offset(b, i, h) + d)])), err = std::fabs(got - want);
          worst = std::max(worst, err);
          if (!(err <= std::ldexp(std::fabs(want) + magnitude, -7) + 1e-6)) {
            if (bad < 5) std::printf("  mismatch at batch %d, head %d, query %d, column %d: got %g, want %g\n", b, h, i, d, got, want);
            ++bad;
          }
        }
      }
  std::printf("07_attention: %d x %d queries x %d keys (GQA %d:%d), causal + relative-position bias, checked against a double-precision "
              "host reference: %d mismatches, max |error| %.3g\n",
              p.batch * p.heads, p.seqlen_q, p.seqlen_k, p.heads, p.heads_kv, bad, worst);
  return bad == 0 ? 0 : 1;
}

// The median of 20 timed runs (after 3 warm-up ones), in microseconds.
template <class C>
double time_us(typename attention::Attention<Cfg<C>>::Arguments const& args) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int i = 0; i < 23; ++i) {
    cudaEventRecord(start);
    (void)attention::Attention<Cfg<C>>{}.run(args);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (i >= 3) ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2] * 1e3;
}

}  // namespace

int main() {
  if (!example::have_gpu()) return 0;
  Tensors const small(attention::Problem::dense(2, 8, 2, 300, 333, 128, attention::Layout::kBSHD));
  if (Status const s = attention::Attention<Cfg<Chain>>::can_implement(small.arguments()); !s) {
    std::printf("the Hopper attention kernel does not run here: %s\n", s.message().c_str());
    return 0;
  }
  if (Status const s = attention::Attention<Cfg<Chain>>{}.run(small.arguments()); !s) {
    std::printf("%s\n", s.message().c_str());
    return 1;
  }
  EXAMPLE_CUDA(example::gpu_synchronize());
  if (int const status = check(small); status != 0) return status;

  Tensors const big(attention::Problem::dense(2, 32, 8, 4096, 4096, 128, attention::Layout::kBSHD));
  auto const with_bias = big.arguments();
  attention::Attention<Cfg<Plain>>::Arguments const plain{big.p, big.d_q, big.d_k, big.d_v, big.d_o};
  double const flops = 4.0 * big.p.batch * big.p.heads * double(big.p.seqlen_q) * big.p.seqlen_k * big.p.head_dim / 2;
  double const biased = time_us<Chain>(with_bias), causal = time_us<Plain>(plain);
  std::printf("07_attention: batch 2, 32 query heads / 8 K/V heads, 4096 tokens, head dim 128, bf16, causal: with the bias %.1f us "
              "(%.0f TFLOP/s), without it %.1f us (%.0f TFLOP/s); median of 20\n",
              biased, flops / (biased * 1e6), causal, flops / (causal * 1e6));
  return 0;
}
