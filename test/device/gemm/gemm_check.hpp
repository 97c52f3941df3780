// The GEMM test harness: random operands in their storage layouts, outputs poisoned before each
// run, a host reference in double precision through the same epilogue chain, per-element error
// bounds for the types involved.
#pragma once

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include "../support/device_check.hpp"
#include "tessera/core/rounding.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera/gemm/gemm.hpp"

namespace tessera::test {

template <class T>
double as_double(T x) {
  if constexpr (std::is_arithmetic_v<T>) {
    return double(x);
  } else {
    return double(x.to_float());
  }
}

template <class T>
T random_value(std::mt19937& rng) {
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int> d(-8, 8);
    int x;
    do { x = d(rng); } while (x == 0);
    return T(x);
  } else {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    float x;
    do { x = d(rng); } while (x == 0.0f);
    if constexpr (std::is_same_v<T, float>) {
      return x;
    } else {
      return T(x);
    }
  }
}

struct GemmCase {
  int m, n, k;
  int batch = 1;
  int split_k = 1;               // 0: chosen by the GEMM
  int pad = -1;                  // -1: leading dimensions rounded up to 16 elements plus 16 (the 16-byte
                                 // fast path); >= 0: the extent plus this many (odd: the narrow path)
  int misalign = 0;              // operand pointers start this many elements past an aligned address
  gemm::StorageOrder d_order = gemm::StorageOrder::kRowMajor;
  int d_pad = -2;                // D's leading dimension as `pad` does for it; -2: the same as `pad`
  bool swap_ab = false;          // Arguments::swap_ab (sm90): the kernel computes D^T = B^T A^T
  int raster_group = 0;          // Arguments::raster_group: the order of the tiles (0: automatic)
  gemm::L2Hint l2_hint_a = gemm::L2Hint::kAuto, l2_hint_b = gemm::L2Hint::kAuto;  // the loads' L2 priorities (sm90)
};

// Per-tensor scales and the amax output of the sm90 kernel (Arguments::scale_a ... amax_d): set
// passes them; powers of two keep the scaled reference exact.
struct Scales {
  bool set = false;
  float a = 1.0f, b = 1.0f, d = 1.0f;
  bool amax = false;
};

// A column of everything the epilogue stages may read, owned by the test.
struct EpilogueData {
  std::vector<float> row_vec, col_vec, row_vec2, col_vec2;  // bias / scale / shift
  std::vector<float> c;                                     // C (for beta) and the residual, M x N row-major per batch
  DeviceBuffer<float>* d_row_vec = nullptr;
};

// Arguments of a 64 x 64 x 64 problem on 64 x 64 buffers (leading dimensions 64): the starting
// point of the error-path tests, which then break one thing.
template <class Cfg>
gemm::Arguments<Cfg> args_64(DeviceBuffer<typename Cfg::ElementA>& a, DeviceBuffer<typename Cfg::ElementB>& b,
                             DeviceBuffer<typename Cfg::ElementD>& d) {
  gemm::Arguments<Cfg> args;
  args.m = args.n = args.k = 64;
  args.a = a.get();
  args.lda = 64;
  args.b = b.get();
  args.ldb = 64;
  args.d = d.get();
  args.ldd = 64;
  return args;
}

template <class Cfg>
class GemmCheck {
 public:
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  using ED = typename Cfg::ElementD;
  using Epi = typename Cfg::Epilogue;

  // Runs the case with `epi` (whose device pointers the caller filled) and compares with the host.
  // `host_epi` is the same chain with host pointers, evaluated on the host for the reference.
  // `extra_tol`: an absolute allowance on top of the rounding bounds (integer outputs of a float
  // epilogue may round to the neighbouring integer when device and host functions differ slightly).
  static void run(GemmCase const& cs, Epi const& epi, Epi const& host_epi, unsigned seed = 1, double extra_tol = 0,
                  Scales const& sc = {}) {
    tessera::test::require_gpu();
    INFO("M=" << cs.m << " N=" << cs.n << " K=" << cs.k << " batch=" << cs.batch << " split_k=" << cs.split_k
              << " pad=" << cs.pad << " d_pad=" << cs.d_pad << " misalign=" << cs.misalign << (cs.swap_ab ? " swap_ab" : "")
              << " raster_group=" << cs.raster_group << " l2_hints=" << int(cs.l2_hint_a) << "," << int(cs.l2_hint_b) << " D " << (cs.d_order == gemm::StorageOrder::kRowMajor ? "row" : "column") << "-major");
    std::mt19937 rng(seed);
    int const m = cs.m, n = cs.n, k = cs.k, batch = cs.batch;
    auto ld_pad = [](std::int64_t extent, int pad) { return pad < 0 ? (extent + 15) / 16 * 16 + 16 : extent + pad; };
    auto ld_for = [&](std::int64_t extent) { return ld_pad(extent, cs.pad); };
    std::int64_t const lda = ld_for(Cfg::a_k_major ? k : m);
    std::int64_t const ldb = ld_for(Cfg::b_k_major ? k : n);
    std::int64_t const ldd = ld_pad(cs.d_order == gemm::StorageOrder::kRowMajor ? n : m, cs.d_pad == -2 ? cs.pad : cs.d_pad);
    std::int64_t const sa = ld_for(lda * (Cfg::a_k_major ? m : k));  // batch strides
    std::int64_t const sb = ld_for(ldb * (Cfg::b_k_major ? n : k));
    std::int64_t const sd = ldd * (cs.d_order == gemm::StorageOrder::kRowMajor ? m : n);
    std::vector<EA> ha(std::size_t(sa * batch) + cs.misalign);
    std::vector<EB> hb(std::size_t(sb * batch) + cs.misalign);
    for (auto& x : ha) x = random_value<EA>(rng);
    for (auto& x : hb) x = random_value<EB>(rng);
    DeviceBuffer<EA> da(ha);
    DeviceBuffer<EB> db(hb);
    DeviceBuffer<ED> dd(std::size_t(sd * batch));  // poisoned (0xA5 bytes)

    gemm::Arguments<Cfg> args;
    args.m = m;
    args.n = n;
    args.k = k;
    args.a = da.get() + cs.misalign;
    args.lda = lda;
    args.b = db.get() + cs.misalign;
    args.ldb = ldb;
    args.d = dd.get();
    args.ldd = ldd;
    args.d_order = cs.d_order;
    args.batch_count = batch;
    args.batch_stride_a = batch > 1 ? sa : 0;
    args.batch_stride_b = batch > 1 ? sb : 0;
    args.batch_stride_d = batch > 1 ? sd : 0;
    args.split_k = cs.split_k;
    args.swap_ab = cs.swap_ab;
    args.raster_group = cs.raster_group;
    args.l2_hint_a = cs.l2_hint_a;
    args.l2_hint_b = cs.l2_hint_b;
    args.epilogue = epi;
    DeviceBuffer<float> scales(std::vector<float>{sc.a, sc.b, sc.d}), amax(std::vector<float>{-1.0f});
    if (sc.set) {
      args.scale_a = scales.get();
      args.scale_b = scales.get() + 1;
      args.scale_d = scales.get() + 2;
      if (sc.amax) args.amax_d = amax.get();
    }
    gemm::Gemm<Cfg> op;
    std::size_t const ws_bytes = op.workspace_size(args);
    DeviceBuffer<char> ws(ws_bytes > 0 ? ws_bytes : 1);
    Status const s = op.run(args, ws_bytes > 0 ? ws.get() : nullptr);
    INFO(s.message());
    REQUIRE(s.ok());
    TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
    auto const got = dd.to_host();
    if constexpr (Cfg::warp_specialized) {
      // The sm90 kernel leaves its split-K counters zero: a second run told so (no memset) must
      // write the same D bit for bit (the slices are summed in a fixed order) over a fresh poison.
      if (ws_bytes > 0) {
        dd.poison();
        args.workspace_zeroed = true;
        REQUIRE(op.run(args, ws.get()).ok());
        TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
        auto const again = dd.to_host();
        REQUIRE(std::memcmp(again.data(), got.data(), got.size() * sizeof(ED)) == 0);
      }
    }

    auto A = [&](int b, int i, int kk) {
      return as_double(ha[cs.misalign + b * (batch > 1 ? sa : 0) + (Cfg::a_k_major ? i * lda + kk : kk * lda + i)]);
    };
    auto B = [&](int b, int kk, int j) {
      return as_double(hb[cs.misalign + b * (batch > 1 ? sb : 0) + (Cfg::b_k_major ? j * ldb + kk : kk * ldb + j)]);
    };
    std::vector<int> bad_rows(std::size_t(m) * batch, 0);
    struct Worst {  // a row's largest |error| / tolerance, and where
      double ratio = 0, have = 0, want = 0, mag = 0;
      int j = -1;
    };
    std::vector<Worst> worst(std::size_t(m) * batch);
    std::vector<double> row_amax(std::size_t(m) * batch, 0.0);  // max |epilogue(...)| before scale_d
    double const ab = double(sc.a) * sc.b, scale_d = sc.d;
    double const u_out = unit_roundoff<ED>();
    // Accumulation in float (or exact int32); tf32 inputs are rounded to 10 mantissa bits. fp8
    // wgmma adds its products into the accumulator with about 14 bits kept (aligned to the largest
    // term, as cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM): measured errors reach 2^-16 of sum |a b|.
    constexpr bool fp8 = gemm::detail::fp8_type<EA>;
    double const u_acc = std::is_same_v<EA, float> ? std::ldexp(1.0, -10)
                         : fp8                     ? std::ldexp(1.0, -13)
                                                   : (std::is_integral_v<EA> ? 0.0 : std::ldexp(1.0, -22));
    auto check_rows = [&](int lo, int hi) {
      for (int r = lo; r < hi; ++r) {
        int const b = r / m, i = r % m;
        for (int j = 0; j < n; ++j) {
          double acc = 0, mag = 0;
          for (int kk = 0; kk < k; ++kk) {
            double const p = A(b, i, kk) * B(b, kk, j);
            acc += p;
            mag += std::fabs(p);
          }
          float const y = host_epi(float(ab * acc), epilogue::Coord{i, j, b});
          row_amax[std::size_t(r)] = std::max(row_amax[std::size_t(r)], std::fabs(double(y)));
          double const want = as_double(epilogue::convert_output<ED>(float(scale_d * y)));
          std::int64_t const at = b * (batch > 1 ? sd : 0) +
                                  (cs.d_order == gemm::StorageOrder::kRowMajor ? i * ldd + j : j * ldd + i);
          double const have = as_double(got[std::size_t(at)]);
          // |error| <= output rounding + accumulation error carried through a Lipschitz-2 epilogue
          double const tol = 2 * u_out * std::fabs(want) + subnormal_spacing<ED>() +
                             std::fabs(scale_d) * (4 * u_acc * mag * ab + 1e-6) + extra_tol;
          if (!(std::fabs(have - want) <= tol)) ++bad_rows[std::size_t(r)];
          Worst& w = worst[std::size_t(r)];
          if (double const ratio = std::fabs(have - want) / tol; !(ratio <= w.ratio)) w = {ratio, have, want, mag, j};
        }
      }
    };
    int const rows = m * batch;
    unsigned const workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
      pool.emplace_back(check_rows, int(std::int64_t(rows) * w / workers), int(std::int64_t(rows) * (w + 1) / workers));
    for (auto& t : pool) t.join();
    int bad = 0, first_bad = -1, worst_row = 0;
    for (int r = 0; r < rows; ++r) {
      bad += bad_rows[std::size_t(r)];
      if (bad_rows[std::size_t(r)] && first_bad < 0) first_bad = r;
      if (!(worst[std::size_t(r)].ratio <= worst[std::size_t(worst_row)].ratio)) worst_row = r;
    }
    Worst const& w = worst[std::size_t(worst_row)];
    INFO("first wrong row " << first_bad << "; worst: row " << worst_row << " column " << w.j << ": " << w.have << " for "
                            << w.want << " (|error| " << std::fabs(w.have - w.want) << " = " << w.ratio
                            << " x tolerance; sum |a b| " << w.mag << ")");
    REQUIRE(bad == 0);
    if (sc.set && sc.amax) {
      double const want = *std::max_element(row_amax.begin(), row_amax.end());
      double const have = amax.to_host()[0];
      INFO("amax: device " << have << ", host " << want);
      REQUIRE(std::fabs(have - want) <= 1e-3 * want + 1e-6);
    }
    // Nothing outside D's elements was written: the padding keeps its poison.
    if (batch == 1) {
      std::int64_t const outer = cs.d_order == gemm::StorageOrder::kRowMajor ? m : n;
      std::int64_t const inner = cs.d_order == gemm::StorageOrder::kRowMajor ? n : m;
      ED poison;
      std::memset(&poison, 0xA5, sizeof(ED));
      for (std::int64_t r = 0; r < outer; ++r)
        for (std::int64_t p = inner; p < ldd; ++p)
          REQUIRE(std::memcmp(&got[std::size_t(r * ldd + p)], &poison, sizeof(ED)) == 0);
    }
  }

  static void run(GemmCase const& cs) { run(cs, Epi{}, Epi{}); }
};

// Every epilogue stage the library ships, each switchable at run time: one kernel per type x
// layout tests them all. All off (the default) is the identity.
namespace ep = tessera::epilogue;
using AllStages = ep::Chain<ep::Optional<ep::LinearCombination<float>>, ep::Optional<ep::Bias<ep::PerRow>>,
                            ep::Optional<ep::Bias<ep::PerColumn>>, ep::Optional<ep::ScaleShift<ep::PerRow>>,
                            ep::Optional<ep::ScaleShift<ep::PerColumn>>, ep::Optional<ep::ResidualAdd<float>>,
                            ep::Optional<ep::Relu>, ep::Optional<ep::GeluTanh>, ep::Optional<ep::GeluErf>,
                            ep::Optional<ep::Silu>, ep::Optional<ep::Sigmoid>, ep::Optional<ep::Clamp>,
                            ep::Optional<ep::ConvertTo<half_t>>>;
inline constexpr int kAllStagesCount = AllStages::size;
inline char const* const kStageNames[] = {"LinearCombination", "Bias<PerRow>", "Bias<PerColumn>", "ScaleShift<PerRow>",
                                          "ScaleShift<PerColumn>", "ResidualAdd", "Relu", "GeluTanh", "GeluErf",
                                          "Silu", "Sigmoid", "Clamp", "ConvertTo<half>"};

// The data AllStages' stages read: C and the residual (M x N row-major per batch entry, `mn`
// apart), a bias / scale and a shift per row and per column.
struct AllStagesData {
  float const *c, *row_a, *row_b, *col_a, *col_b, *residual;
  int n;
  std::int64_t mn;
};

// AllStages on `data` with stage i on where on(i): LinearCombination 0.75 x + -0.5 C, the row
// and column vectors as bias (a) and as scale (a) and shift (b), Clamp to [-0.25, 0.5].
template <class On>
AllStages all_stages_chain(AllStagesData const& data, On&& on) {
  AllStages e;
  get<0>(e.stages) = {{0.75f, -0.5f, ep::MatrixRef<float>::row_major(data.c, data.n, data.mn)}, on(0)};
  get<1>(e.stages) = {{data.row_a}, on(1)};
  get<2>(e.stages) = {{data.col_a}, on(2)};
  get<3>(e.stages) = {{data.row_a, data.row_b}, on(3)};
  get<4>(e.stages) = {{data.col_a, data.col_b}, on(4)};
  get<5>(e.stages) = {{ep::MatrixRef<float>::row_major(data.residual, data.n, data.mn)}, on(5)};
  get<6>(e.stages).enabled = on(6);
  get<7>(e.stages).enabled = on(7);
  get<8>(e.stages).enabled = on(8);
  get<9>(e.stages).enabled = on(9);
  get<10>(e.stages).enabled = on(10);
  get<11>(e.stages) = {{-0.25f, 0.5f}, on(11)};
  get<12>(e.stages).enabled = on(12);
  return e;
}

// Runs `cs` once per stage (that stage alone) and once with every stage on, with the per-tensor
// scales `sc` (sm90).
template <class Cfg>
void check_every_stage(GemmCase const& cs, Scales const& sc = {}) {
  static_assert(std::is_same_v<typename Cfg::Epilogue, AllStages>, "check_every_stage: the Config's epilogue must be AllStages");
  std::mt19937 rng(99);
  auto vec = [&](int len) {
    std::vector<float> v(static_cast<std::size_t>(len));
    for (auto& x : v) x = random_value<float>(rng);
    return v;
  };
  int const m = cs.m, n = cs.n;
  auto const row_a = vec(m), row_b = vec(m), col_a = vec(n), col_b = vec(n), c = vec(m * n * cs.batch), r = vec(m * n * cs.batch);
  DeviceBuffer<float> d_row_a(row_a), d_row_b(row_b), d_col_a(col_a), d_col_b(col_b), d_c(c), d_r(r);
  // The chain on either the device or the host copies of the data.
  auto make = [&](bool device, int only) {
    auto pick = [&](DeviceBuffer<float>& d, std::vector<float> const& h) { return device ? d.get() : h.data(); };
    return all_stages_chain(AllStagesData{pick(d_c, c), pick(d_row_a, row_a), pick(d_row_b, row_b), pick(d_col_a, col_a),
                                          pick(d_col_b, col_b), pick(d_r, r), n, std::int64_t(m) * n},
                            [&](int i) { return only < 0 || only == i; });
  };
  for (int s = -1; s < kAllStagesCount; ++s) {
    INFO("epilogue: " << (s < 0 ? "every stage" : kStageNames[s]));
    // Integer outputs: the device's fast tanh/exp may put a value on the other side of a rounding
    // boundary than the host's; one unit is the most that can differ.
    double const extra = std::is_integral_v<typename Cfg::ElementD> && s != 0 && s != 1 && s != 2 ? 1.0 : 0.0;
    GemmCheck<Cfg>::run(cs, make(true, s), make(false, s), unsigned(7 + s), extra, sc);
  }
}

// The shapes every type x layout runs: ones, primes, tile residues in every dimension, K shorter
// and longer than a tile, and one of a thousand. With TESSERA_TEST_SMALL set (the sanitizer runs),
// only the cases of at most 2^21 multiply-adds.
inline std::vector<GemmCase> standard_cases() {
  std::vector<GemmCase> all = {
      {1, 1, 1},       {7, 7, 7},          {1, 127, 64},       {127, 1, 33},       {16, 8, 16},
      {127, 61, 129},  {131, 257, 97},     {128, 128, 64},     {200, 96, 1},       {64, 64, 2048, 1, 4},
      {33, 65, 300, 3}, {1000, 1000, 1000}, {129, 130, 131, 1, 1, -1, 0, gemm::StorageOrder::kColumnMajor},
      {61, 67, 71, 2, 1, 3},  // odd leading dimensions: the narrow-alignment path
      {40, 24, 64, 1, 1, 0, 1},  // operands one element past an aligned address: the narrow path
      {16, 136, 960, 1, 0},      // a decode shape with automatic split-K (several slices)
      {20, 40, 1000, 2, 0},      // automatic split-K, batched, with a K residue
  };
  if (std::getenv("TESSERA_TEST_SMALL") == nullptr) return all;
  std::vector<GemmCase> small;
  for (auto const& c : all)
    if (std::int64_t(c.m) * c.n * c.k * c.batch <= (std::int64_t(1) << 21)) small.push_back(c);
  return small;
}

// One element type's suite: every operand layout on every standard shape, and every epilogue
// stage on a residue shape and a batched one. The epilogue works on the accumulators, whatever
// the operands' layouts, so the stages run on TN only (the AllStages kernel, its stages off for the
// standard shapes) and the other layouts take the identity epilogue: the 13-stage chain is the
// costliest code to compile, and four copies of it per type made these the slowest files to build.
// Each type's test file instantiates one suite (one translation unit per type, compiled in parallel).
template <class E, class D, class Acc, int BK>
struct TypeSuite {
  template <class LayoutA, class LayoutB, class Epi>
  using Cfg = gemm::Config<arch::Sm80, E, LayoutA, E, LayoutB, D, Acc, gemm::BlockTile<128, 128, BK>, gemm::Warps<2, 2>,
                           gemm::Stages<3>, Epi>;

  template <class C>
  static void standard_shapes() {
    for (auto const& cs : standard_cases()) GemmCheck<C>::run(cs);
  }

  static void run() {
    SECTION("TN (A row-major, B column-major), every epilogue stage") {
      using C = Cfg<RowMajor, ColumnMajor, AllStages>;
      standard_shapes<C>();
      check_every_stage<C>({127, 61, 129});
      check_every_stage<C>({40, 72, 64, 2});
    }
    SECTION("NT (A column-major, B row-major)") { standard_shapes<Cfg<ColumnMajor, RowMajor, ep::Identity>>(); }
    SECTION("NN (A column-major, B column-major)") { standard_shapes<Cfg<ColumnMajor, ColumnMajor, ep::Identity>>(); }
    SECTION("TT (A row-major, B row-major)") { standard_shapes<Cfg<RowMajor, RowMajor, ep::Identity>>(); }
  }
};

}  // namespace tessera::test
