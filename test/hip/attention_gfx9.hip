// attention::Attention<Config> with the AMD tags (the gfx9 kernel, attention/gfx9/), in two modes:
//   attention_gfx9 errors   the argument checks and their messages, which need no device: they run
//                           in CI and end with the device check, which must say that there is none;
//   attention_gfx9 device   fused attention on an AMD device against the host reference in double
//                           (test/support/attention_reference.hpp): random Q, K, V, O and LSE
//                           poisoned, lengths 1, 3, 113, 129 and sq != sk both ways, no keys, GQA
//                           and MQA, BSHD and BHSD, head dims 64, 128, 256 and (72, 40), bf16 and
//                           f16, causal (both alignments), a window, softcap and ALiBi. Without a
//                           device it says so and exits 77, which ctest reports as skipped.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../support/attention_reference.hpp"
#include "tessera/attention/attention.hpp"
#include "tessera/attention/masks.hpp"

using namespace tessera;
using namespace tessera::attention;

namespace {

int failures = 0;

void expect(bool ok, std::string const& what) {
  std::printf("%-72s %s\n", what.c_str(), ok ? "passed" : "FAILED");
  failures += !ok;
}

template <class Arch, int D, int Dv = D, class Chain = NoMask, class E = bfloat16_t, int W = 2, int BKV = 64>
using Cfg = Config<Arch, E, HeadDim<D, Dv>, BlockTile<32 * W, BKV>, Warps<W>, Stages<2>, Chain>;

// ---- errors -------------------------------------------------------------------------------------

int run_errors() {
  using C = Cfg<arch::Gfx90a, 128>;
  static bfloat16_t buffer[64];
  Attention<C> op;
  auto check = [&](Problem const& p, bfloat16_t* o, StatusCode code, char const* needle, char const* what) {
    Status const s = op.can_implement(typename Attention<C>::Arguments{p, buffer, buffer, buffer, o});
    bool const ok = s.code() == code && s.message().find(needle) != std::string::npos;
    if (!ok) std::printf("  got: %s\n", s.message().c_str());
    expect(ok, what);
  };
  Problem const good = Problem::dense(1, 2, 2, 64, 64, 128, attention::Layout::kBSHD);
  check(Problem::dense(1, 2, 2, 64, 64, 64, attention::Layout::kBSHD), buffer, StatusCode::kNotSupported,
        "are not the Config's HeadDim<128, 128>", "another head dimension is refused");
  check(Problem::dense(1, 6, 4, 64, 64, 128, attention::Layout::kBSHD), buffer, StatusCode::kInvalidArgument,
        "heads = 6 is not a multiple of heads_kv = 4", "heads not a multiple of heads_kv is refused");
  check(good, buffer + 1, StatusCode::kMisaligned, "16-byte aligned", "a misaligned O is refused");
  static int cu[2] = {0, 64};
  check(Problem::variable_lengths(1, 2, 2, cu, cu, 64, 64, 64, 64, 128), buffer, StatusCode::kNotSupported,
        "variable lengths (cu_seqlens) are not in the gfx9 kernel yet", "variable lengths are refused");
  check(Problem::dense(1, 65536, 1, 1, 1, 128, attention::Layout::kBSHD), buffer, StatusCode::kNotSupported, "at most 65535 heads",
        "more heads than the grid takes are refused");
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0)
    check(good, buffer, StatusCode::kDeviceError, "no HIP device", "valid arguments without a device: no HIP device");
  else
    expect(op.can_implement(typename Attention<C>::Arguments{good, buffer, buffer, buffer, buffer}).code() != StatusCode::kInvalidArgument,
           "valid arguments pass the argument checks");
  return failures == 0 ? 0 : 1;
}

// ---- device -------------------------------------------------------------------------------------

template <class T>
struct Buffer {
  T* p = nullptr;
  std::size_t n;
  explicit Buffer(std::size_t n_) : n(n_ > 0 ? n_ : 1) {
    (void)hipMalloc(&p, n * sizeof(T));
    (void)hipMemset(p, 0xA5, n * sizeof(T));  // poisoned: unwritten outputs show
  }
  ~Buffer() { (void)hipFree(p); }
  void put(std::vector<T> const& h) { (void)hipMemcpy(p, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice); }
  std::vector<T> get() const {
    std::vector<T> h(n);
    (void)hipMemcpy(h.data(), p, n * sizeof(T), hipMemcpyDeviceToHost);
    return h;
  }
};

template <class E>
std::vector<E> random_tensor(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<E> v(n > 0 ? n : 1);
  for (auto& x : v) x = E(normal(rng));
  return v;
}

// p against the reference, with the chain `dev` (its host twin `host`): O within 2^-7 of (|o| + the
// sum of p |v|), LSE within 2^-10 (1 + |lse|), -inf where a query sees no key.
template <class C>
void run_case(char const* name, Problem const& p, typename C::Chain const& dev = {}, typename C::Chain const& host = {}) {
  using E = typename C::Element;
  std::size_t const nq = std::size_t(p.batch) * p.seqlen_q * p.heads * p.head_dim;
  std::size_t const nk = std::size_t(p.batch) * p.seqlen_k * p.heads_kv * p.head_dim;
  std::size_t const nv = std::size_t(p.batch) * p.seqlen_k * p.heads_kv * p.head_dim_v;
  std::size_t const no = std::size_t(p.batch) * p.seqlen_q * p.heads * p.head_dim_v;
  auto const q = random_tensor<E>(nq, 1), k = random_tensor<E>(nk, 2), v = random_tensor<E>(nv, 3);
  Buffer<E> dq(q.size()), dk(k.size()), dv(v.size()), dout(no);
  Buffer<float> dlse(std::size_t(p.batch) * p.heads * p.seqlen_q);
  dq.put(q), dk.put(k), dv.put(v);
  Status const s = Attention<C>{}.run(typename Attention<C>::Arguments{p, dq.p, dk.p, dv.p, dout.p, dlse.p, dev});
  if (!s) std::printf("  %s\n", s.message().c_str());
  bool ok = s.ok() && hipDeviceSynchronize() == hipSuccess;
  auto const got = dout.get();
  auto const lse = dlse.get();
  auto const ref = test::attention_reference(p, test::attention_lengths(p), q.data(), k.data(), v.data(), host, no);
  double worst = 0;
  for (std::size_t i = 0; ok && i < no; ++i) {
    double const e = std::fabs(double(got[i].to_float()) - ref.o[i]) / (std::ldexp(std::fabs(ref.o[i]) + ref.mag[i], -7) + 1e-6);
    worst = std::max(worst, std::isnan(e) ? 1e30 : e);
  }
  for (std::size_t i = 0; ok && i < ref.lse.size(); ++i) {
    double const want = ref.lse[i];
    double const e = std::isinf(want) ? (std::isinf(lse[i]) && lse[i] < 0 ? 0.0 : 1e30)
                                      : std::fabs(lse[i] - want) / std::ldexp(1.0 + std::fabs(want), -10);
    worst = std::max(worst, std::isnan(e) ? 1e30 : e);
  }
  char what[160];
  std::snprintf(what, sizeof what, "%s: b %d h %d/%d sq %d sk %d (worst %.3g)", name, p.batch, p.heads, p.heads_kv, p.seqlen_q, p.seqlen_k,
                worst);
  expect(ok && worst <= 1.0, what);
}

Problem dense(int b, int h, int hk, int sq, int sk, int d, attention::Layout layout = attention::Layout::kBSHD, int dv = 0) {
  return Problem::dense(b, h, hk, sq, sk, d, layout, dv);
}

template <class Arch>
void run_device() {
  for (int len : {1, 3, 113, 129}) run_case<Cfg<Arch, 128>>("bf16 hd128", dense(1, 2, 2, len, len, 128));
  run_case<Cfg<Arch, 128>>("bf16 hd128 MQA, sq < sk", dense(2, 4, 1, 113, 300, 128));
  run_case<Cfg<Arch, 128>>("bf16 hd128 GQA 4, sq > sk, BHSD", dense(1, 8, 2, 300, 3, 128, attention::Layout::kBHSD));
  run_case<Cfg<Arch, 128>>("bf16 hd128 no keys", dense(1, 2, 2, 100, 0, 128));
  run_case<Cfg<Arch, 64, 64, NoMask, half_t, 4, 64>>("f16 hd64", dense(2, 2, 2, 257, 190, 64));
  run_case<Cfg<Arch, 256, 256, NoMask, bfloat16_t, 2, 32>>("bf16 hd256", dense(1, 2, 2, 150, 170, 256));
  run_case<Cfg<Arch, 72, 40>>("bf16 hd (72, 40)", dense(1, 3, 3, 65, 190, 72, attention::Layout::kBSHD, 40));
  using BR = ScoreChain<Causal<BottomRight>>;
  run_case<Cfg<Arch, 128, 128, BR>>("bf16 causal bottom-right", dense(1, 2, 2, 300, 200, 128));
  using TL = ScoreChain<Causal<TopLeft>>;
  run_case<Cfg<Arch, 128, 128, TL>>("bf16 causal top-left", dense(1, 2, 2, 200, 300, 128));
  using Window = ScoreChain<SlidingWindow<BottomRight>>;
  run_case<Cfg<Arch, 128, 128, Window>>("bf16 window (100, 30)", dense(1, 2, 2, 300, 400, 128), Window{{100, 30}}, Window{{100, 30}});
  using Capped = ScoreChain<Softcap, Causal<BottomRight>>;
  run_case<Cfg<Arch, 128, 128, Capped>>("bf16 softcap + causal", dense(1, 2, 2, 257, 257, 128), Capped{{2.0f}, {}}, Capped{{2.0f}, {}});
  std::vector<float> const slopes{0.5f, 0.25f};
  Buffer<float> dslopes(slopes.size());
  dslopes.put(slopes);
  using Linear = ScoreChain<Alibi<BottomRight>>;
  run_case<Cfg<Arch, 128, 128, Linear>>("bf16 ALiBi", dense(1, 2, 2, 130, 260, 128), Linear{{dslopes.p}}, Linear{{slopes.data()}});
}

}  // namespace

int main(int argc, char** argv) {
  std::string const mode = argc > 1 ? argv[1] : "device";
  if (mode == "errors") return run_errors();
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0) {
    std::printf("skipped: no AMD device (the argument checks run in `attention_gfx9 errors`)\n");
    return 77;
  }
  hipDeviceProp_t prop;
  (void)hipGetDeviceProperties(&prop, 0);
  std::string const arch = prop.gcnArchName;
  if (arch.rfind("gfx94", 0) == 0) run_device<arch::Gfx940>();
  else if (arch.rfind("gfx90a", 0) == 0) run_device<arch::Gfx90a>();
  else {
    std::printf("skipped: %s is neither gfx90a nor gfx94x\n", arch.c_str());
    return 77;
  }
  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
