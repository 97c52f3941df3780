// gemm::Gemm<Config> with the AMD tags (the gfx9 kernel), in two modes:
//   gemm_gfx9 errors   the argument checks and their messages, which need no device: they run in
//                      CI and end with the device check, which must say that there is no device;
//   gemm_gfx9 device   the GEMM on an AMD device against a host reference in double precision:
//                      every layout of f16, bf16, f32 and int8 (fp8 FNUZ on gfx94x), odd shapes,
//                      split-K, batches, a column-major D and epilogue stages, outputs poisoned
//                      before each run. Without a device it says so and exits 77, which ctest
//                      reports as skipped, not passed.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/core/rounding.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera/gemm/gemm.hpp"

using namespace tessera;

namespace {

int failures = 0;

void expect(bool ok, std::string const& what) {
  std::printf("%-72s %s\n", what.c_str(), ok ? "passed" : "FAILED");
  failures += !ok;
}


template <class Arch, class E, class LA, class LB, class ED = E, class Acc = float, class Epi = epilogue::Identity,
          class Tile = gemm::BlockTile<128, 128, 32 * 2 / int(sizeof(E))>>
using Cfg = gemm::Config<Arch, E, LA, E, LB, ED, Acc, Tile, gemm::Warps<2, 2>, gemm::Stages<2>, Epi>;

// ---- errors -------------------------------------------------------------------------------------

int run_errors() {
  using C = Cfg<arch::Gfx90a, half_t, RowMajor, ColumnMajor>;
  gemm::Gemm<C> op;
  static half_t dummy[16];
  gemm::Arguments<C> good{.m = 64, .n = 64, .k = 64, .a = dummy, .lda = 64, .b = dummy, .ldb = 64, .d = dummy, .ldd = 64};
  auto check = [&](gemm::Arguments<C> args, StatusCode code, char const* needle, char const* what) {
    Status const s = op.can_implement(args);
    bool const ok = s.code() == code && s.message().find(needle) != std::string::npos;
    if (!ok) std::printf("  got: %s\n", s.message().c_str());
    expect(ok, what);
  };
  auto with = [&](auto change) {
    gemm::Arguments<C> a = good;
    change(a);
    return a;
  };
  check(with([](auto& a) { a.m = 0; }), StatusCode::kInvalidArgument, "M, N and K must be at least 1", "M = 0 is refused");
  check(with([](auto& a) { a.b = nullptr; }), StatusCode::kInvalidArgument, "null pointer for B", "a null B is refused");
  check(with([](auto& a) { a.lda = 63; }), StatusCode::kInvalidArgument, "pass lda >= 64", "lda < K (row-major A) is refused");
  check(with([](auto& a) { a.ldd = 10; }), StatusCode::kInvalidArgument, "pass ldd >= 64", "ldd < N is refused");
  check(with([](auto& a) { a.split_k = 5; }), StatusCode::kInvalidArgument, "split_k = 5", "split_k beyond the K tiles is refused");
  check(with([](auto& a) { a.swap_ab = true; }), StatusCode::kNotSupported, "swap_ab", "swap_ab (an sm90 option) is refused");
  static float scale = 1.0f;
  check(with([](auto& a) { a.scale_a = &scale; }), StatusCode::kNotSupported, "scale_a", "per-tensor scales are refused");
  check(with([](auto& a) { a.batch_count = 0; }), StatusCode::kInvalidArgument, "batch_count", "batch_count = 0 is refused");
  // A leading dimension whose k-tile spans more than AMD buffer loads reach (128 rows of 2^24 halves).
  check(with([](auto& a) { a.lda = std::int64_t(1) << 24; }), StatusCode::kInvalidArgument, "past the 2 GiB that AMD buffer loads reach",
        "an lda beyond the reach of buffer loads is refused");
  check(with([](auto& a) { a.ldb = std::int64_t(1) << 24; }), StatusCode::kInvalidArgument, "ldb = 16777216",
        "an ldb beyond the reach of buffer loads is refused");
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0)
    check(good, StatusCode::kDeviceError, "no HIP device", "valid arguments without a device: no HIP device");
  else
    expect(op.can_implement(good).code() != StatusCode::kInvalidArgument, "valid arguments pass the argument checks");
  // run() launches nothing and says the same as can_implement.
  Status const r = op.run(with([](auto& a) { a.k = -1; }));
  expect(r.code() == StatusCode::kInvalidArgument, "run() with K = -1 returns can_implement's error");
  return failures == 0 ? 0 : 1;
}

// ---- device -------------------------------------------------------------------------------------

template <class T>
double as_double(T x) {
  if constexpr (std::is_arithmetic_v<T>) return double(x);
  else return double(x.to_float());
}

template <class T>
T random_value(std::mt19937& rng) {
  if constexpr (std::is_integral_v<T>) {
    int x = std::uniform_int_distribution<int>(-8, 8)(rng);
    return T(x == 0 ? 3 : x);
  } else {
    float x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
    if (x == 0.0f) x = 0.5f;
    if constexpr (std::is_same_v<T, float>) return x;
    else return T(x);
  }
}

template <class T>
struct Buffer {
  T* p = nullptr;
  explicit Buffer(std::size_t n) { (void)hipMalloc(&p, n * sizeof(T) + 64); }
  ~Buffer() { (void)hipFree(p); }
  void put(std::vector<T> const& h) { (void)hipMemcpy(p, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice); }
  std::vector<T> get(std::size_t n) const {
    std::vector<T> h(n);
    (void)hipMemcpy(h.data(), p, n * sizeof(T), hipMemcpyDeviceToHost);
    return h;
  }
};

struct Case {
  int m, n, k, batch = 1, split_k = 1;
  bool aligned = true;  // leading dimensions padded to 16-byte multiples (else odd: element loads)
  bool d_column_major = false;
};

enum class Stages { kNone, kBiasGelu, kResidual };

// Runs one case of Config C (with the epilogue named by `stages`) against the host reference.
template <class C, Stages S = Stages::kNone>
void run_case(char const* name, Case const& cs) {
  using EA = typename C::ElementA;
  using EB = typename C::ElementB;
  using ED = typename C::ElementD;
  int const m = cs.m, n = cs.n, k = cs.k, batch = cs.batch;
  auto const ld = [&](int extent) { return cs.aligned ? (extent + 15) / 16 * 16 + 16 : extent + 3; };
  std::int64_t const lda = ld(C::a_k_major ? k : m), ldb = ld(C::b_k_major ? k : n), ldd = ld(cs.d_column_major ? m : n);
  std::int64_t const sa = lda * (C::a_k_major ? m : k), sb = ldb * (C::b_k_major ? n : k), sd = ldd * (cs.d_column_major ? n : m);
  std::mt19937 rng(std::uint32_t(m * 131 + n * 7 + k));
  std::vector<EA> a(std::size_t(sa) * batch);
  std::vector<EB> b(std::size_t(sb) * batch);
  for (auto& x : a) x = random_value<EA>(rng);
  for (auto& x : b) x = random_value<EB>(rng);
  std::vector<float> bias(n), residual(std::size_t(m) * n * batch);
  for (auto& x : bias) x = random_value<float>(rng);
  for (auto& x : residual) x = random_value<float>(rng);
  Buffer<EA> da(a.size());
  Buffer<EB> db(b.size());
  Buffer<ED> dd(std::size_t(sd) * batch);
  Buffer<float> dbias(bias.size()), dres(residual.size());
  da.put(a);
  db.put(b);
  dbias.put(bias);
  dres.put(residual);
  (void)hipMemset(dd.p, 0x7B, std::size_t(sd) * batch * sizeof(ED));  // poison

  gemm::Arguments<C> args{.m = m, .n = n, .k = k, .a = da.p, .lda = lda, .b = db.p, .ldb = ldb, .d = dd.p, .ldd = ldd};
  args.d_order = cs.d_column_major ? gemm::StorageOrder::kColumnMajor : gemm::StorageOrder::kRowMajor;
  args.batch_count = batch;
  args.batch_stride_a = sa;
  args.batch_stride_b = sb;
  args.batch_stride_d = sd;
  args.split_k = cs.split_k;
  if constexpr (S == Stages::kBiasGelu) {
    args.epilogue = {epilogue::Bias<epilogue::PerColumn>{dbias.p}, epilogue::GeluTanh{}};
  } else if constexpr (S == Stages::kResidual) {
    args.epilogue = {epilogue::LinearCombination<>{0.5f}, epilogue::ResidualAdd<>{epilogue::MatrixRef<float>::row_major(dres.p, n, std::int64_t(m) * n)}};
  }
  gemm::Gemm<C> op;
  Buffer<char> workspace(gemm::Gemm<C>::workspace_size(args) + 1);
  Status const s = op.run(args, workspace.p);
  hipError_t const e = hipDeviceSynchronize();
  std::string const what = std::string(name) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                           (batch > 1 ? " batch " + std::to_string(batch) : "") +
                           (cs.split_k != 1 ? " split " + std::to_string(cs.split_k) : "") + (cs.aligned ? "" : " odd ld") +
                           (cs.d_column_major ? " D col-major" : "");
  if (!s || e != hipSuccess) {
    std::printf("  %s\n", s ? hipGetErrorString(e) : s.message().c_str());
    expect(false, what);
    return;
  }
  std::vector<ED> d = dd.get(std::size_t(sd) * batch);
  // Error bound: the operands are exact in double; float accumulation over K, then D's rounding.
  double const u_acc = std::is_integral_v<typename C::ElementAccumulator> ? 0.0 : std::ldexp(1.0, -23) * k * 2;
  double const u_d = unit_roundoff<ED>();
  int bad = 0;
  for (int bt = 0; bt < batch; ++bt)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double acc = 0, mag = 0;
        for (int kk = 0; kk < k; ++kk) {
          double const x = as_double(a[bt * sa + (C::a_k_major ? i * lda + kk : kk * lda + i)]);
          double const y = as_double(b[bt * sb + (C::b_k_major ? j * ldb + kk : kk * ldb + j)]);
          acc += x * y;
          mag += std::fabs(x * y);
        }
        double want = acc, slope = 1;
        if constexpr (S == Stages::kBiasGelu) {
          double const z = acc + bias[j];
          double const t = std::tanh(0.7978845608028654 * (z + 0.044715 * z * z * z));
          want = 0.5 * z * (1 + t);
          slope = 1.2;
        } else if constexpr (S == Stages::kResidual) {
          want = 0.5 * acc + residual[(std::size_t(bt) * m + i) * n + j];
        }
        double const got = as_double(d[bt * sd + (cs.d_column_major ? j * ldd + i : i * ldd + j)]);
        double const tol = slope * u_acc * mag + u_d * std::fabs(want) + 1e-5 + (S == Stages::kBiasGelu ? 1e-5 : 0);
        if (!(std::fabs(got - want) <= tol)) {
          if (bad < 3) std::printf("  (%d, %d, %d): got %.8g, want %.8g\n", bt, i, j, got, want);
          ++bad;
        }
      }
  expect(bad == 0, what);
}

// The shapes every layout runs: one element, primes, residues in every dimension, long K.
template <class C, Stages S = Stages::kNone>
void run_shapes(char const* name) {
  for (Case const& cs : {Case{1, 1, 1}, Case{7, 13, 5}, Case{127, 129, 67}, Case{256, 128, 96}, Case{131, 257, 200, 1, 1, false},
                         Case{64, 96, 1000, 1, 4}, Case{97, 61, 72, 3}, Case{130, 70, 33, 1, 1, true, true}})
    run_case<C, S>(name, cs);
}

template <class Arch>
void run_device() {
  run_shapes<Cfg<Arch, half_t, RowMajor, ColumnMajor>>("f16 TN");
  run_shapes<Cfg<Arch, half_t, ColumnMajor, ColumnMajor>>("f16 NN");
  run_shapes<Cfg<Arch, half_t, RowMajor, RowMajor>>("f16 TT");
  run_shapes<Cfg<Arch, half_t, ColumnMajor, RowMajor>>("f16 NT");
  run_shapes<Cfg<Arch, bfloat16_t, RowMajor, ColumnMajor>>("bf16 TN");
  run_shapes<Cfg<Arch, bfloat16_t, ColumnMajor, RowMajor>>("bf16 NT");
  run_shapes<Cfg<Arch, float, RowMajor, ColumnMajor, float, float, epilogue::Identity, gemm::BlockTile<128, 128, 16>>>("f32 TN");
  run_shapes<Cfg<Arch, std::int8_t, RowMajor, ColumnMajor, std::int32_t, std::int32_t, epilogue::Identity,
                 gemm::BlockTile<128, 128, 64>>>("int8 TN");
  using BiasGelu = epilogue::Chain<epilogue::Bias<epilogue::PerColumn>, epilogue::GeluTanh>;
  run_shapes<Cfg<Arch, half_t, RowMajor, ColumnMajor, half_t, float, BiasGelu>, Stages::kBiasGelu>("f16 TN bias+gelu");
  using Residual = epilogue::Chain<epilogue::LinearCombination<>, epilogue::ResidualAdd<>>;
  run_shapes<Cfg<Arch, bfloat16_t, RowMajor, ColumnMajor, float, float, Residual>, Stages::kResidual>("bf16 TN -> f32 residual");
  if constexpr (std::is_same_v<Arch, arch::Gfx940>) {
    run_shapes<Cfg<Arch, float8_e4m3_fnuz_t, RowMajor, ColumnMajor, half_t, float, epilogue::Identity, gemm::BlockTile<128, 128, 64>>>(
        "e4m3 fnuz TN -> f16");
    run_shapes<Cfg<Arch, float8_e5m2_fnuz_t, RowMajor, ColumnMajor, half_t, float, epilogue::Identity, gemm::BlockTile<128, 128, 64>>>(
        "e5m2 fnuz TN -> f16");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string const mode = argc > 1 ? argv[1] : "device";
  if (mode == "errors") return run_errors();
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0) {
    std::printf("skipped: no AMD device (the argument checks run in `gemm_gfx9 errors`)\n");
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
