// Fused attention, forward, against cuDNN's fused attention and FlashAttention-2 as PyTorch ships
// them (peers.hpp), measured in the same binary on the same tensors: head dims 64, 128 and 256,
// sequence lengths 512 to 16k at batch x seqlen = 16k tokens and heads x head dim = 2048, causal and
// not, bf16 BSHD; f16 and BHSD at head dim 128; GQA with 32 query and 8 KV heads; a mix of variable
// lengths. Work: FlashAttention's count, 4 b h sq sk d FLOP, halved when causal (Problem::flops);
// the rate is TFLOP/s. Built only where libtorch is found (bench/attention/CMakeLists.txt).
//
// Each row also reports, from one untimed call, o_norm = |O| and o_fingerprint = Σ ±O[i] (signs
// from a hash of i): rows of one problem that compute the same thing differ in o_fingerprint by the
// rounding of a sum of random-signed terms, a small fraction of o_norm; a row that reads the
// tensors otherwise (strides, heads, masks, lengths) differs by about o_norm.
//
// Our kernel's rows (BM_tessera) join each family under the same names: same Problem, tensors,
// timing and FLOP count.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_util.hpp"
#include "peers.hpp"
#include "tessera/attention/attention.hpp"
#include "tessera/attention/masks.hpp"
#include "tessera/core/numeric_types.hpp"

using namespace tessera;
using bench::attention::Buffers;
using bench::attention::Dtype;
using QkvLayout = bench::attention::Layout;  // (tessera::Layout is core/layout.hpp's)
using bench::attention::Operand;
using bench::attention::Peer;
using bench::attention::Problem;

namespace {

constexpr int kTokens = 16384;      // batch x seqlen of every fixed-length problem
constexpr int kHeadsTimesDim = 2048;  // query heads x head dim

// {hd, seqlen, causal}: b = 16k / seqlen sequences, 2048 / hd heads (MHA).
template <Dtype T, QkvLayout L, bool Lse>
Problem mha(benchmark::State const& state) {
  Problem p;
  p.d = p.dv = int(state.range(0));
  p.sq = p.sk = int(state.range(1));
  p.causal = state.range(2) != 0;
  p.b = kTokens / p.sq;
  p.h = p.hk = kHeadsTimesDim / p.d;
  p.dtype = T, p.layout = L, p.lse = Lse;
  return p;
}
// {seqlen, causal}: GQA, 32 query heads sharing 8 KV heads, head dim 128.
Problem gqa(benchmark::State const& state) {
  Problem p;
  p.sq = p.sk = int(state.range(0));
  p.causal = state.range(1) != 0;
  p.b = kTokens / p.sq;
  p.h = 32, p.hk = 8;
  return p;
}
// {causal}: 8 sequences of mixed lengths, 16k tokens in all, 16 heads of 128, packed.
Problem varlen(benchmark::State const& state) {
  Problem p;
  p.seqlens_q = p.seqlens_k = {512, 1024, 3072, 2048, 256, 7168, 1536, 768};
  p.b = int(p.seqlens_q.size());
  p.sq = p.sk = *std::max_element(p.seqlens_q.begin(), p.seqlens_q.end());
  p.causal = state.range(0) != 0;
  return p;
}
// {seqlen, causal}: head dim 192 for Q K^T and 128 for V (DeepSeek's MLA prefill shape), 16 heads.
Problem mla(benchmark::State const& state) {
  Problem p;
  p.d = 192, p.dv = 128;
  p.sq = p.sk = int(state.range(0));
  p.causal = state.range(1) != 0;
  p.b = kTokens / p.sq;
  p.h = p.hk = 16;
  return p;
}
using MakeProblem = Problem (*)(benchmark::State const&);

void timing(benchmark::internal::Benchmark* b) {
  b->UseManualTime()->MinTime(0.05)->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond);
}
void grid(benchmark::internal::Benchmark* b, std::vector<long> const& dims) {
  b->ArgNames({"hd", "seqlen", "causal"});
  for (long d : dims)
    for (long causal : {0, 1})
      for (long s = 512; s <= kTokens; s *= 2) b->Args({d, s, causal});
  timing(b);
}
void all_dims(benchmark::internal::Benchmark* b) { grid(b, {64, 96, 128, 256}); }
void dim128(benchmark::internal::Benchmark* b) { grid(b, {128}); }
void gqa_grid(benchmark::internal::Benchmark* b) {
  b->ArgNames({"seqlen", "causal"});
  for (long causal : {0, 1})
    for (long s = 512; s <= kTokens; s *= 2) b->Args({s, causal});
  timing(b);
}
void varlen_grid(benchmark::internal::Benchmark* b) {
  b->ArgNames({"causal"});
  b->Arg(0)->Arg(1);
  timing(b);
}

std::string problem_key(Problem const& p) {
  std::string k;
  for (int v : {p.b, p.h, p.hk, p.sq, p.sk, p.d, p.dv, int(p.dtype), int(p.layout)}) k += std::to_string(v) + "/";
  for (int v : p.seqlens_q) k += std::to_string(v) + ",";
  for (int v : p.seqlens_k) k += std::to_string(v) + ",";
  return k;
}

// A problem's tensors, random normal (full mantissas), filled on the device, laid out as
// bench::attention::shape says; kept while consecutive rows share the problem. Variable-length
// problems get their prefix sums on the device.
struct Tensors {
  std::string key;
  void *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;
  int *cu_q = nullptr, *cu_k = nullptr;
  explicit Tensors(Problem const& p) : key(problem_key(p)) {
    auto make = [&](void*& d, Operand x, unsigned seed) {
      std::size_t const n = std::size_t(bench::attention::shape(p, x).elements);
      TESSERA_BENCH_CUDA(cudaMalloc(&d, n * 2));
      if (p.dtype == Dtype::kBf16) bench::fill_random(static_cast<bfloat16_t*>(d), n, seed);
      else bench::fill_random(static_cast<half_t*>(d), n, seed);
    };
    make(q, Operand::kQ, 1);
    make(k, Operand::kK, 2);
    make(v, Operand::kV, 3);
    make(o, Operand::kO, 4);
    auto prefix = [](int*& d, std::vector<int> const& lengths) {
      std::vector<int> sums(1, 0);
      for (int n : lengths) sums.push_back(sums.back() + n);
      TESSERA_BENCH_CUDA(cudaMalloc(&d, sums.size() * sizeof(int)));
      TESSERA_BENCH_CUDA(cudaMemcpy(d, sums.data(), sums.size() * sizeof(int), cudaMemcpyHostToDevice));
    };
    if (p.varlen()) {
      prefix(cu_q, p.seqlens_q);
      prefix(cu_k, p.seqlens_k);
    }
  }
  ~Tensors() {
    for (void* d : {q, k, v, o, static_cast<void*>(cu_q), static_cast<void*>(cu_k)}) cudaFree(d);
  }
};
Tensors& tensors(Problem& p) {
  static std::unique_ptr<Tensors> cached;
  if (!cached || cached->key != problem_key(p)) {
    cached.reset();
    cached = std::make_unique<Tensors>(p);
  }
  p.cu_seqlens_q = cached->cu_q, p.cu_seqlens_k = cached->cu_k;
  return *cached;
}

struct Fingerprint {
  double signed_sum = 0, norm = 0;
};
// Σ ±O[i] (the sign from a hash of i) and |O|, in double on the host.
Fingerprint fingerprint(Problem const& p, void const* o) {
  std::size_t const n = std::size_t(bench::attention::shape(p, Operand::kO).elements);
  std::vector<std::uint16_t> bits(n);
  TESSERA_BENCH_CUDA(cudaMemcpy(bits.data(), o, n * 2, cudaMemcpyDeviceToHost));
  Fingerprint f;
  for (std::size_t i = 0; i < n; ++i) {
    double const x = p.dtype == Dtype::kBf16 ? float(bfloat16_t::from_bits(bits[i])) : float(half_t::from_bits(bits[i]));
    std::uint64_t h = i * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    f.signed_sum += (h >> 7) & 1 ? x : -x;
    f.norm += x * x;
  }
  f.norm = std::sqrt(f.norm);
  return f;
}

// Keeps one thread busy for `cycles` SM clocks; kHoldClocks is ~100 us at the H100's and H200's
// 1.98 GHz.
constexpr long long kHoldClocks = 200000;
__global__ void hold(long long cycles) {
  long long const start = clock64();
  while (clock64() - start < cycles) {
  }
}

// bench::run_timed's method (warm-up, L2 flushed, events around one call, median of the
// repetitions), with the GPU held for ~100 us between the flush and the start event: a peer's host
// side (Torch's dispatch and allocator, cuDNN's plan cache: tens of microseconds, more than a
// kernel launch's few) is then queued before the timing starts, so that only GPU time is counted,
// as for our own kernels.
template <class Launch>
void run_timed_queued(benchmark::State& state, Launch&& launch) {
  static bench::L2Flusher flusher;
  for (int i = 0; i < 3; ++i) launch();
  TESSERA_BENCH_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  TESSERA_BENCH_CUDA(cudaEventCreate(&start));
  TESSERA_BENCH_CUDA(cudaEventCreate(&stop));
  for (auto _ : state) {
    flusher.flush();
    hold<<<1, 1>>>(kHoldClocks);
    TESSERA_BENCH_CUDA(cudaEventRecord(start));
    launch();
    TESSERA_BENCH_CUDA(cudaEventRecord(stop));
    TESSERA_BENCH_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    TESSERA_BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

void counters(benchmark::State& state, Problem const& p, Fingerprint const& f) {
  state.counters["TFLOP/s"] = benchmark::Counter(p.flops() * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["o_fingerprint"] = f.signed_sum;
  state.counters["o_norm"] = f.norm;
}

// A peer on the problem: one untimed call that also copies its output into our O (poisoned first)
// for the fingerprint, then the timed calls on the default stream, the one the events are on.
template <Peer P, MakeProblem Make>
void BM_peer(benchmark::State& state) {
  Problem p = Make(state);
  Tensors& t = tensors(p);
  std::string why;
  if (!bench::attention::peer_available(P, p, &why)) return state.SkipWithError(why.c_str());
  std::size_t const o_bytes = std::size_t(bench::attention::shape(p, Operand::kO).elements) * 2;
  TESSERA_BENCH_CUDA(cudaMemset(t.o, 0xFF, o_bytes));  // NaN in bf16 and f16
  if (!bench::attention::peer_run(P, p, Buffers{t.q, t.k, t.v, t.o}, nullptr, &why)) return state.SkipWithError(why.substr(0, 400).c_str());
  TESSERA_BENCH_CUDA(cudaDeviceSynchronize());
  Fingerprint const fp = fingerprint(p, t.o);
  Buffers const timed{t.q, t.k, t.v, nullptr};
  run_timed_queued(state, [&] {
    if (!bench::attention::peer_run(P, p, timed, nullptr, &why)) {
      std::fprintf(stderr, "bench_attention: a peer refused a problem it ran before: %s\n", why.c_str());
      std::exit(1);
    }
  });
  counters(state, p, fp);
}

// Our kernel's Configs for a head dim and mask: FlashAttention-3's tiles where they measured
// faster here (docs/performance.md): three consumers (192 x 128) at head dim 64; 128 x 176 at 128
// where the sequences are long enough for its blocks (128 x 128 below); 128 x 64 at 256 (shared
// memory).
template <class E, int D, int BKV, class Chain>
using Ours = tessera::attention::Config<arch::Sm90, E, tessera::attention::HeadDim<D>, tessera::attention::BlockTile<D == 64 ? 192 : 128, BKV>,
                                        tessera::attention::Consumers<D == 64 ? 3 : 2>, tessera::attention::Stages<2>, Chain>;
// Head dim 64 on two consumers (128 x 128): without a mask below 2k keys (H100, 512: 362 against
// 341 TFLOP/s on three), causal below 8k (4k: 410 against 373; 8k: 439 against 465).
template <class E, class Chain>
using Ours64 = tessera::attention::Config<arch::Sm90, E, tessera::attention::HeadDim<64>, tessera::attention::BlockTile<128, 128>,
                                          tessera::attention::Consumers<2>, tessera::attention::Stages<2>, Chain>;

// Head dims 192 / 128: 128 x 128 (one Q stage).
template <class E, class Chain>
using OursMla = tessera::attention::Config<arch::Sm90, E, tessera::attention::HeadDim<192, 128>, tessera::attention::BlockTile<128, 128>,
                                           tessera::attention::Consumers<2>, tessera::attention::Stages<2>, Chain>;

// The problem as attention::Problem, with shape()'s strides (Torch's causal mask is top-left; the
// problems here have sq = sk, where both alignments agree).
tessera::attention::Problem ours(Problem const& p) {
  namespace at = tessera::attention;
  if (p.varlen()) {  // packed BSHD tokens, as shape() lays them out
    at::Problem q = at::Problem::variable_lengths(p.b, p.h, p.hk, p.cu_seqlens_q, p.cu_seqlens_k, p.sq, p.sk, p.tokens_q(), p.tokens_k(), p.d,
                                                  p.dv);
    q.scale = p.softmax_scale();
    return q;
  }
  at::Problem q = at::Problem::dense(p.b, p.h, p.hk, p.sq, p.sk, p.d, at::Layout::kBSHD, p.dv);
  auto const strides = [&](Operand x) {
    bench::attention::Shape const sh = bench::attention::shape(p, x);
    return at::Strides{sh.batch_stride, sh.token_stride, sh.head_stride};
  };
  q.q = strides(Operand::kQ), q.k = strides(Operand::kK), q.v = strides(Operand::kV), q.o = strides(Operand::kO);
  q.scale = p.softmax_scale();
  return q;
}

// `flops`: the work the row's rate counts (0: Problem::flops).
template <class Cfg>
void run_ours(benchmark::State& state, Problem& p, typename Cfg::Chain const& chain = {}, double flops = 0) {
  using E = typename Cfg::Element;
  Tensors& t = tensors(p);
  typename tessera::attention::Attention<Cfg>::Arguments args{ours(p), static_cast<E const*>(t.q), static_cast<E const*>(t.k),
                                                              static_cast<E const*>(t.v), static_cast<E*>(t.o), nullptr, chain};
  if (Status const s = tessera::attention::Attention<Cfg>::can_implement(args); !s) return state.SkipWithError(s.message().c_str());
  std::size_t const o_bytes = std::size_t(bench::attention::shape(p, Operand::kO).elements) * 2;
  TESSERA_BENCH_CUDA(cudaMemset(t.o, 0xFF, o_bytes));
  (void)tessera::attention::Attention<Cfg>{}.run(args);
  TESSERA_BENCH_CUDA(cudaDeviceSynchronize());
  Fingerprint const fp = fingerprint(p, t.o);
  run_timed_queued(state, [&] { (void)tessera::attention::Attention<Cfg>{}.run(args); });
  counters(state, p, fp);
  if (flops > 0) state.counters["TFLOP/s"] = benchmark::Counter(flops * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
}

// The work of the blocks of keys Cfg's kernel computes for p under `chain` (every row of a tile
// against every key of a visited block, clipped to the sequences): FlashAttention's count, 2 (d +
// dv) a query-key pair, over the pairs computed rather than the pairs seen.
template <class Cfg>
double computed_flops(Problem const& p, typename Cfg::Chain const& chain) {
  namespace at = tessera::attention;
  double pairs = 0;
  for (int q0 = 0; q0 < p.sq; q0 += Cfg::BQ) {
    int const q1 = std::min(q0 + Cfg::BQ, p.sq);
    at::BlockRange const r = at::block_range(chain, at::Block{0, 0, q0, q1, 0, p.sk, p.sq, p.sk}, Cfg::BKV);
    for (int n = r.first; n < r.last; ++n) pairs += double(q1 - q0) * double(std::min((n + 1) * Cfg::BKV, p.sk) - n * Cfg::BKV);
  }
  return 2.0 * double(p.b) * double(p.h) * pairs * double(p.d + p.dv);
}

// {seqlen, stage}: head dim 128, 16 heads, non-causal, with one score stage: 0 a sliding window
// of 1024 keys back (and none ahead), 1 a soft cap of 30, 2 ALiBi (slopes 2^-(h + 1) / 2). The
// rate counts the blocks the kernel computes (computed_flops): next to attn_bf16/tessera's rate
// at the same shape, it says what a stage costs on the work it does not skip.
void BM_tessera_stage(benchmark::State& state) {
  namespace at = tessera::attention;
  Problem p;
  p.sq = p.sk = int(state.range(0));
  p.b = kTokens / p.sq;
  using Window = at::ScoreChain<at::SlidingWindow<at::TopLeft>>;
  using Capped = at::ScoreChain<at::Softcap>;
  using Linear = at::ScoreChain<at::Alibi<at::TopLeft>>;
  static float* slopes = [] {
    float* d = nullptr;
    std::vector<float> h(16);
    for (int i = 0; i < 16; ++i) h[std::size_t(i)] = std::ldexp(1.0f, -(i + 1) / 2);
    TESSERA_BENCH_CUDA(cudaMalloc(&d, h.size() * sizeof(float)));
    TESSERA_BENCH_CUDA(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    return d;
  }();
  // On 128 x 128 (H100, 4k and 16k: the window about 10 % faster than on 128 x 176, ALiBi and
  // Softcap 3-7 %; docs/performance.md).
  switch (state.range(1)) {
    case 0: {
      Window const w{{1024, 0}};
      return run_ours<Ours<bfloat16_t, 128, 128, Window>>(state, p, w, computed_flops<Ours<bfloat16_t, 128, 128, Window>>(p, w));
    }
    case 1: return run_ours<Ours<bfloat16_t, 128, 128, Capped>>(state, p, Capped{{30.0f}});
    default: return run_ours<Ours<bfloat16_t, 128, 128, Linear>>(state, p, Linear{{slopes}});
  }
}
// {hd, seqlen, causal}: our kernel in fp8 e4m3 (O in bf16, unit scales), the attn_bf16 grid's
// shapes at hd 128 and 256; the peers have no fp8 path here, so the row stands beside
// attn_bf16/tessera's.
void BM_tessera_fp8(benchmark::State& state) {
  namespace at = tessera::attention;
  Problem p = mha<Dtype::kBf16, QkvLayout::kBSHD, false>(state);
  using E8 = float8_e4m3_t;
  std::size_t const n = std::size_t(p.b) * p.sq * p.h * p.d;
  struct Buffers8 {
    E8 *q = nullptr, *k = nullptr, *v = nullptr;
    bfloat16_t* o = nullptr;
    std::size_t n = 0;
  };
  static Buffers8 t;
  if (t.n != n) {
    for (void* d : {static_cast<void*>(t.q), static_cast<void*>(t.k), static_cast<void*>(t.v), static_cast<void*>(t.o)}) cudaFree(d);
    TESSERA_BENCH_CUDA(cudaMalloc(&t.q, n));
    TESSERA_BENCH_CUDA(cudaMalloc(&t.k, n));
    TESSERA_BENCH_CUDA(cudaMalloc(&t.v, n));
    TESSERA_BENCH_CUDA(cudaMalloc(&t.o, n * 2));
    bench::fill_random(t.q, n, 1), bench::fill_random(t.k, n, 2), bench::fill_random(t.v, n, 3);
    t.n = n;
  }
  auto const run = [&]<class Cfg>(Cfg*) {
    typename at::Attention<Cfg>::Arguments args{at::Problem::dense(p.b, p.h, p.hk, p.sq, p.sk, p.d, at::Layout::kBSHD), t.q, t.k, t.v, t.o};
    if (Status const s = at::Attention<Cfg>::can_implement(args); !s) return state.SkipWithError(s.message().c_str());
    TESSERA_BENCH_CUDA(cudaMemset(t.o, 0xFF, n * 2));
    (void)at::Attention<Cfg>{}.run(args);
    TESSERA_BENCH_CUDA(cudaDeviceSynchronize());
    Fingerprint const fp = fingerprint(p, t.o);
    run_timed_queued(state, [&] { (void)at::Attention<Cfg>{}.run(args); });
    counters(state, p, fp);
  };
  using Causal = at::ScoreChain<at::Causal<at::TopLeft>>;
  auto const pick = [&]<int D>(std::integral_constant<int, D>) {
    using Plain = at::Config<arch::Sm90, E8, at::HeadDim<D>, at::BlockTile<128, 128>, at::Consumers<2>, at::Stages<2>>;
    using Masked = at::Config<arch::Sm90, E8, at::HeadDim<D>, at::BlockTile<128, 128>, at::Consumers<2>, at::Stages<2>, Causal>;
    if (p.causal) run(static_cast<Masked*>(nullptr));
    else run(static_cast<Plain*>(nullptr));
  };
  if (p.d == 256) pick(std::integral_constant<int, 256>{});
  else pick(std::integral_constant<int, 128>{});
}

void stage_grid(benchmark::internal::Benchmark* b) {
  b->ArgNames({"seqlen", "stage"});
  for (long stage : {0, 1, 2})
    for (long s : {4096, 16384}) b->Args({s, stage});
  timing(b);
}

// The library on the problem.
template <MakeProblem Make>
void BM_tessera(benchmark::State& state) {
  Problem p = Make(state);
  using Causal = tessera::attention::ScoreChain<tessera::attention::Causal<tessera::attention::TopLeft>>;
  using None = tessera::attention::NoMask;
  // Head dim 128: 128 x 128, whose O leaves through shared memory and TMA (its Q stage fits
  // twice); 128 x 176 from 8k keys without a mask, 16k causal (H100: 16k 649-666 against 630-649
  // TFLOP/s, causal 631-646 against 615-635; causal 8k 627 against 613 on 128 x 128).
  bool const wide = p.sk >= (p.causal ? 16384 : 8192);
  auto const pick = [&]<class E>(E) {
    if (p.d == 64) {
      if (!p.causal) return p.sk >= 2048 ? run_ours<Ours<E, 64, 128, None>>(state, p) : run_ours<Ours64<E, None>>(state, p);
      return p.sk >= 8192 ? run_ours<Ours<E, 64, 128, Causal>>(state, p) : run_ours<Ours64<E, Causal>>(state, p);
    }
    if (p.d == 256) {  // non-causal from 1k keys 128 x 80 (H100: 4k 709 against 674 TFLOP/s, 16k 697 against 648); else 128 x 64
      if (p.sk >= 1024 && !p.causal) return run_ours<Ours<E, 256, 80, None>>(state, p);
      return p.causal ? run_ours<Ours<E, 256, 64, Causal>>(state, p) : run_ours<Ours<E, 256, 64, None>>(state, p);
    }
    if (p.d == 192) return p.causal ? run_ours<OursMla<E, Causal>>(state, p) : run_ours<OursMla<E, None>>(state, p);
    if (p.d == 96) {  // 128 x 176 non-causal from 4k, else 128 x 128 (H100, causal 16k: 532 against 463 TFLOP/s)
      if (p.sk >= 4096 && !p.causal) return run_ours<Ours<E, 96, 176, None>>(state, p);
      return p.causal ? run_ours<Ours<E, 96, 128, Causal>>(state, p) : run_ours<Ours<E, 96, 128, None>>(state, p);
    }
    if (wide) return p.causal ? run_ours<Ours<E, 128, 176, Causal>>(state, p) : run_ours<Ours<E, 128, 176, None>>(state, p);
    return p.causal ? run_ours<Ours<E, 128, 128, Causal>>(state, p) : run_ours<Ours<E, 128, 128, None>>(state, p);
  };
  if (p.dtype == Dtype::kBf16) pick(bfloat16_t{});
  else pick(half_t{});
}

}  // namespace

BENCHMARK(BM_tessera<mha<Dtype::kBf16, QkvLayout::kBSHD, false>>)->Name("attn_bf16/tessera")->Apply(all_dims);
BENCHMARK(BM_tessera<gqa>)->Name("attn_bf16_gqa32x8/tessera")->Apply(gqa_grid);
BENCHMARK(BM_tessera<mla>)->Name("attn_bf16_hd192x128/tessera")->Apply(gqa_grid);  // (the peers here take one head dim)
BENCHMARK(BM_tessera<mha<Dtype::kF16, QkvLayout::kBSHD, false>>)->Name("attn_f16/tessera")->Apply(dim128);
BENCHMARK(BM_tessera<mha<Dtype::kBf16, QkvLayout::kBHSD, false>>)->Name("attn_bf16_bhsd/tessera")->Apply(dim128);
BENCHMARK(BM_peer<Peer::kCudnn, mha<Dtype::kBf16, QkvLayout::kBSHD, false>>)->Name("attn_bf16/cudnn")->Apply(all_dims);
BENCHMARK(BM_peer<Peer::kFlash2, mha<Dtype::kBf16, QkvLayout::kBSHD, false>>)->Name("attn_bf16/flash2")->Apply(all_dims);
BENCHMARK(BM_peer<Peer::kCudnn, gqa>)->Name("attn_bf16_gqa32x8/cudnn")->Apply(gqa_grid);
BENCHMARK(BM_peer<Peer::kFlash2, gqa>)->Name("attn_bf16_gqa32x8/flash2")->Apply(gqa_grid);
BENCHMARK(BM_tessera_fp8)->Name("attn_fp8/tessera")->Apply([](benchmark::internal::Benchmark* b) { grid(b, {128, 256}); });
BENCHMARK(BM_tessera_stage)->Name("attn_bf16_stage/tessera")->Apply(stage_grid);
BENCHMARK(BM_tessera<varlen>)->Name("attn_bf16_varlen/tessera")->Apply(varlen_grid);
BENCHMARK(BM_peer<Peer::kCudnn, varlen>)->Name("attn_bf16_varlen/cudnn")->Apply(varlen_grid);
BENCHMARK(BM_peer<Peer::kFlash2, varlen>)->Name("attn_bf16_varlen/flash2")->Apply(varlen_grid);
BENCHMARK(BM_peer<Peer::kCudnn, mha<Dtype::kF16, QkvLayout::kBSHD, false>>)->Name("attn_f16/cudnn")->Apply(dim128);
BENCHMARK(BM_peer<Peer::kFlash2, mha<Dtype::kF16, QkvLayout::kBSHD, false>>)->Name("attn_f16/flash2")->Apply(dim128);
BENCHMARK(BM_peer<Peer::kCudnn, mha<Dtype::kBf16, QkvLayout::kBHSD, false>>)->Name("attn_bf16_bhsd/cudnn")->Apply(dim128);
BENCHMARK(BM_peer<Peer::kFlash2, mha<Dtype::kBf16, QkvLayout::kBHSD, false>>)->Name("attn_bf16_bhsd/flash2")->Apply(dim128);
// cuDNN's training graph (it writes the log-sum-exp too); FlashAttention-2 always writes it.
BENCHMARK(BM_peer<Peer::kCudnn, mha<Dtype::kBf16, QkvLayout::kBSHD, true>>)->Name("attn_bf16_lse/cudnn")->Apply(dim128);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  bench::add_device_context();
  benchmark::AddCustomContext("peers", bench::attention::peer_versions());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
