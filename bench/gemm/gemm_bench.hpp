// What the GEMM benches share: cuBLAS and cuBLASLt (with its fused GELU_BIAS epilogue) in the same
// binary, device operands filled once per shape, the call of a Tessera GEMM with its workspace,
// the FLOP and byte counters and the shape lists.
// Included by one bench translation unit each (bench_gemm_sm80.cu, bench_gemm_sm90.cu).
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_util.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera/gemm/gemm.hpp"
#include "tessera/gemm/tuned.hpp"

namespace tessera::bench_gemm {

#define TESSERA_BENCH_CUBLAS(expr)                                                 \
  do {                                                                             \
    cublasStatus_t _s = (expr);                                                    \
    if (_s != CUBLAS_STATUS_SUCCESS) {                                             \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #expr, int(_s)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

inline cublasHandle_t cublas() {
  static cublasHandle_t h = [] {
    cublasHandle_t x;
    TESSERA_BENCH_CUBLAS(cublasCreate(&x));
    return x;
  }();
  return h;
}

inline cublasLtHandle_t cublaslt() {
  static cublasLtHandle_t h = [] {
    cublasLtHandle_t x;
    TESSERA_BENCH_CUBLAS(cublasLtCreate(&x));
    return x;
  }();
  return h;
}

template <class T>
struct CudaType;
template <>
struct CudaType<bfloat16_t> {
  static constexpr cudaDataType_t value = CUDA_R_16BF;
};
template <>
struct CudaType<tessera::half_t> {
  static constexpr cudaDataType_t value = CUDA_R_16F;
};
template <>
struct CudaType<float> {
  static constexpr cudaDataType_t value = CUDA_R_32F;
};
template <>
struct CudaType<float8_e4m3_t> {
  static constexpr cudaDataType_t value = CUDA_R_8F_E4M3;
};
template <>
struct CudaType<std::int8_t> {
  static constexpr cudaDataType_t value = CUDA_R_8I;
};
template <>
struct CudaType<std::int32_t> {
  static constexpr cudaDataType_t value = CUDA_R_32I;
};

// Device operands for one problem, filled with random normal values (bench::fill_random).
template <class EA, class ED>
struct Problem {
  int m, n, k;
  EA* a = nullptr;
  EA* b = nullptr;
  ED* d = nullptr;
  bfloat16_t* bias = nullptr;
  Problem(int m_, int n_, int k_) : m(m_), n(n_), k(k_) {
    TESSERA_BENCH_CUDA(cudaMalloc(&a, sizeof(EA) * std::size_t(m) * k));
    TESSERA_BENCH_CUDA(cudaMalloc(&b, sizeof(EA) * std::size_t(n) * k));
    TESSERA_BENCH_CUDA(cudaMalloc(&d, sizeof(ED) * std::size_t(m) * n));
    TESSERA_BENCH_CUDA(cudaMalloc(&bias, sizeof(bfloat16_t) * std::size_t(n)));
    fill(a, std::size_t(m) * k, 1);
    fill(b, std::size_t(n) * k, 2);
    fill(bias, std::size_t(n), 3);
  }
  ~Problem() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(d);
    cudaFree(bias);
  }
  template <class T>
  static void fill(T* p, std::size_t count, unsigned seed) {
    bench::fill_random(p, count, seed);
  }
};

// The operands of the last problem of these types, kept between benchmarks and repetitions so
// that each shape is allocated and filled once (implementations of one problem run back to back).
template <class EA, class ED>
Problem<EA, ED>& problem(int m, int n, int k) {
  static std::unique_ptr<Problem<EA, ED>> cached;
  if (!cached || cached->m != m || cached->n != n || cached->k != k) {
    cached.reset();
    cached = std::make_unique<Problem<EA, ED>>(m, n, k);
  }
  return *cached;
}

template <class EA, class ED, class Acc>
void cublas_gemm(Problem<EA, ED>& p) {
  // Row-major D (m x n) = A (m x k, row-major) * B (k x n, column-major) is, in cuBLAS's
  // column-major terms, D^T (n x m) = B^T (n x k) * A^T (k x m).
  Acc alpha = Acc(1), beta = Acc(0);
  cublasComputeType_t compute = std::is_same_v<EA, float>         ? CUBLAS_COMPUTE_32F_FAST_TF32
                                : std::is_same_v<Acc, std::int32_t> ? CUBLAS_COMPUTE_32I
                                                                    : CUBLAS_COMPUTE_32F;
  TESSERA_BENCH_CUBLAS(cublasGemmEx(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, p.n, p.m, p.k, &alpha, p.b, CudaType<EA>::value,
                                    p.k, p.a, CudaType<EA>::value, p.k, &beta, p.d, CudaType<ED>::value, p.n, compute,
                                    CUBLAS_GEMM_DEFAULT));
}

// What a cuBLASLt call computes: D = gelu(A * B + bias[col]) with its fused epilogue
// (CUBLASLT_EPILOGUE_GELU_BIAS, tanh GELU), or the plain product (fp8 operands), with or without
// CUBLASLT_MATMUL_DESC_FAST_ACCUM (fp8: accumulate in the tensor cores only, as our kernel does,
// instead of promoting partial sums to f32 every few k-steps).
enum class LtOp { kGeluBias, kPlain, kPlainFastAccum };

// D = op(A * B) through cuBLASLt, f32 accumulation; the plan (descriptors, the heuristic's best
// algorithm, 32 MB of workspace) is made once per shape, outside the timing.
template <LtOp Op, class EA, class ED>
void cublaslt_matmul(Problem<EA, ED>& p) {
  struct Plan {
    int m = -1, n = -1, k = -1;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
    void* workspace = nullptr;
    std::size_t workspace_bytes = std::size_t(32) << 20;
  };
  static Plan plan;
  if (plan.m != p.m || plan.n != p.n || plan.k != p.k) {
    if (plan.op) {
      cublasLtMatmulDescDestroy(plan.op);
      cublasLtMatrixLayoutDestroy(plan.a);
      cublasLtMatrixLayoutDestroy(plan.b);
      cublasLtMatrixLayoutDestroy(plan.d);
    }
    if (!plan.workspace) TESSERA_BENCH_CUDA(cudaMalloc(&plan.workspace, plan.workspace_bytes));
    plan.m = p.m;
    plan.n = p.n;
    plan.k = p.k;
    // As in cublas_gemm: D^T (n x m) = B^T (n x k) * A^T (k x m), column-major; the bias runs
    // along D^T's rows, which are D's columns.
    TESSERA_BENCH_CUBLAS(cublasLtMatmulDescCreate(&plan.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t const t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    cublasLtEpilogue_t const epilogue = Op == LtOp::kGeluBias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
    std::int8_t const fast_accum = Op == LtOp::kPlainFastAccum ? 1 : 0;
    TESSERA_BENCH_CUBLAS(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    TESSERA_BENCH_CUBLAS(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n));
    TESSERA_BENCH_CUBLAS(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    TESSERA_BENCH_CUBLAS(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum, sizeof fast_accum));
    TESSERA_BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&plan.a, CudaType<EA>::value, p.k, p.n, p.k));
    TESSERA_BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&plan.b, CudaType<EA>::value, p.k, p.m, p.k));
    TESSERA_BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&plan.d, CudaType<ED>::value, p.n, p.m, p.n));
    cublasLtMatmulPreference_t pref;
    TESSERA_BENCH_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    TESSERA_BENCH_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                              &plan.workspace_bytes, sizeof plan.workspace_bytes));
    void const* bias = p.bias;
    if (Op == LtOp::kGeluBias)
      TESSERA_BENCH_CUBLAS(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    cublasLtMatmulHeuristicResult_t best{};
    int found = 0;
    TESSERA_BENCH_CUBLAS(cublasLtMatmulAlgoGetHeuristic(cublaslt(), plan.op, plan.a, plan.b, plan.d, plan.d, pref, 1, &best, &found));
    cublasLtMatmulPreferenceDestroy(pref);
    if (found < 1) {
      std::fprintf(stderr, "cuBLASLt: no algorithm for %d x %d x %d\n", p.m, p.n, p.k);
      std::exit(1);
    }
    plan.algo = best.algo;
  }
  void const* bias = p.bias;
  if (Op == LtOp::kGeluBias)
    TESSERA_BENCH_CUBLAS(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  float const alpha = 1.0f, beta = 0.0f;
  TESSERA_BENCH_CUBLAS(cublasLtMatmul(cublaslt(), plan.op, &alpha, p.b, plan.a, p.a, plan.b, &beta, p.d, plan.d, p.d, plan.d,
                                      &plan.algo, plan.workspace, plan.workspace_bytes, nullptr));
}

// The unfused baseline's second kernel: D = gelu_tanh(D + bias[col]), bf16, 8 elements per thread.
__global__ void bias_gelu_kernel(bfloat16_t* d, bfloat16_t const* bias, int m, int n) {
  std::int64_t const total = std::int64_t(m) * n;
  for (std::int64_t i = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) * 8; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x * 8) {
    for (int j = 0; j < 8 && i + j < total; ++j) {
      int const col = int((i + j) % n);
      float const x = float(d[i + j]) + float(bias[col]);
      d[i + j] = bfloat16_t(epilogue::GeluTanh{}(x, epilogue::Coord{0, col, 0}));
    }
  }
}

// Runs G (a gemm::Gemm<Cfg> or a gemm::Tuned dispatch) on `args`.
template <class G, class Args>
void run_gemm(Args args) {
  // The workspace grows to the largest any problem asked for and is kept (no allocation in the
  // timing). It is zeroed whenever the problem changes, and otherwise left as the last run left it
  // (counters zero), so that the timed runs skip the counters' memset as a decode loop would.
  static void* workspace = nullptr;
  static std::size_t workspace_bytes = 0;
  static std::array<int, 4> last{};  // m, n, k, swap_ab of the problem the counters were left zero by
  std::size_t const need = G::workspace_size(args);
  if (need > workspace_bytes) {
    cudaFree(workspace);
    TESSERA_BENCH_CUDA(cudaMalloc(&workspace, need));
    workspace_bytes = need;
    last = {};
  }
  std::array<int, 4> const key{args.m, args.n, args.k, int(args.swap_ab)};
  if (last != key && need > 0) TESSERA_BENCH_CUDA(cudaMemset(workspace, 0, need));
  last = key;
  args.workspace_zeroed = true;
  Status const s = G{}.run(args, workspace);
  if (!s) {
    std::fprintf(stderr, "tessera GEMM: %s\n", s.message().c_str());
    std::exit(1);
  }
}

// The arguments of problem p (TN, packed) with split-K automatic: decode shapes (few output
// tiles, long K) are split.
template <class Args, class P>
Args tn_arguments(P& p, decltype(Args::epilogue) epi = {}, bool swap_ab = false) {
  Args args;
  args.m = p.m;
  args.n = p.n;
  args.k = p.k;
  args.a = p.a;
  args.lda = p.k;
  args.b = p.b;
  args.ldb = p.k;
  args.d = p.d;
  args.ldd = p.n;
  args.epilogue = epi;
  args.split_k = 0;
  args.swap_ab = swap_ab;
  return args;
}

template <class Cfg>
void run_tessera(Problem<typename Cfg::ElementA, typename Cfg::ElementD>& p, typename Cfg::Epilogue epi = {}, bool swap_ab = false) {
  run_gemm<gemm::Gemm<Cfg>>(tn_arguments<gemm::Arguments<Cfg>>(p, epi, swap_ab));
}

inline void set_flops(benchmark::State& state, int m, int n, int k) {
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * m * n * k * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
}

// Bytes a GEMM must move at least (A and B read once, D written once): decode shapes are bound by
// them, so their benches report GB/s as well.
template <class EA, class ED>
void set_bytes(benchmark::State& state, int m, int n, int k) {
  double const bytes = double(sizeof(EA)) * (double(m) * k + double(n) * k) + double(sizeof(ED)) * m * n;
  state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

using BiasGelu = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::GeluTanh>;

// GEMM + bias + GELU fused in a Tessera epilogue (Cfg's Epilogue is BiasGelu).
template <class Cfg>
void BM_tessera_bias_gelu(benchmark::State& state) {
  int const m = int(state.range(0)), n = int(state.range(1)), k = int(state.range(2));
  auto& p = problem<typename Cfg::ElementA, typename Cfg::ElementD>(m, n, k);
  BiasGelu epi{{p.bias}, {}};
  bench::run_timed(state, [&] { run_tessera<Cfg>(p, epi); });
  set_flops(state, m, n, k);
}

// SwapAB: Arguments::swap_ab (the sm90 kernel computes D^T = B^T A^T).
template <class Cfg, bool SwapAB = false>
void BM_tessera(benchmark::State& state) {
  int const m = int(state.range(0)), n = int(state.range(1)), k = int(state.range(2));
  auto& p = problem<typename Cfg::ElementA, typename Cfg::ElementD>(m, n, k);
  bench::run_timed(state, [&] { run_tessera<Cfg>(p, {}, SwapAB); });
  set_flops(state, m, n, k);
  set_bytes<typename Cfg::ElementA, typename Cfg::ElementD>(state, m, n, k);
}

// A gemm::Tuned dispatch (its table's entries decide the Config and swap_ab per problem).
template <class Tuned>
void BM_tessera_tuned(benchmark::State& state) {
  using Args = typename Tuned::Arguments;
  using EA = std::remove_cv_t<std::remove_pointer_t<decltype(Args::a)>>;
  using ED = std::remove_pointer_t<decltype(Args::d)>;
  int const m = int(state.range(0)), n = int(state.range(1)), k = int(state.range(2));
  auto& p = problem<EA, ED>(m, n, k);
  bench::run_timed(state, [&] { run_gemm<Tuned>(tn_arguments<Args>(p)); });
  set_flops(state, m, n, k);
  set_bytes<EA, ED>(state, m, n, k);
}

// The host's cost of the whole call (bench::run_host_timed) of a gemm::Tuned dispatch and of
// cublasGemmEx on the same problem: M x N x K in operands whose rows are padded to 16 bytes (what
// TMA reads; 1 x 1 x 1 in rows of 8 elements).
template <class EA, class ED>
Problem<EA, ED>& call_problem(benchmark::State& state, int& n, int& k) {
  n = int(state.range(1));
  k = int(state.range(2));
  return problem<EA, ED>(int(state.range(0)), (n + 7) / 8 * 8, (k + 7) / 8 * 8);
}
template <class Tuned>
void BM_call_tessera_tuned(benchmark::State& state) {
  using Args = typename Tuned::Arguments;
  using EA = std::remove_cv_t<std::remove_pointer_t<decltype(Args::a)>>;
  using ED = std::remove_pointer_t<decltype(Args::d)>;
  int n, k;
  auto& p = call_problem<EA, ED>(state, n, k);
  Args args = tn_arguments<Args>(p);  // leading dimensions of the padded operands
  args.n = n;
  args.k = k;
  bench::run_host_timed(state, [&] { run_gemm<Tuned>(args); });
}
template <class EA, class ED, class Acc>
void BM_call_cublas(benchmark::State& state) {
  int n, k;
  auto& p = call_problem<EA, ED>(state, n, k);
  Acc alpha = Acc(1), beta = Acc(0);
  bench::run_host_timed(state, [&] {
    TESSERA_BENCH_CUBLAS(cublasGemmEx(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, n, p.m, k, &alpha, p.b, CudaType<EA>::value, p.k, p.a,
                                      CudaType<EA>::value, p.k, &beta, p.d, CudaType<ED>::value, p.n, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT));
  });
}

template <class EA, class ED, class Acc>
void BM_cublas(benchmark::State& state) {
  int const m = int(state.range(0)), n = int(state.range(1)), k = int(state.range(2));
  auto& p = problem<EA, ED>(m, n, k);
  bench::run_timed(state, [&] { cublas_gemm<EA, ED, Acc>(p); });
  set_flops(state, m, n, k);
  set_bytes<EA, ED>(state, m, n, k);
}

template <LtOp Op, class EA, class ED>
void BM_cublaslt(benchmark::State& state) {
  int const m = int(state.range(0)), n = int(state.range(1)), k = int(state.range(2));
  auto& p = problem<EA, ED>(m, n, k);
  cublaslt_matmul<Op>(p);  // the plan, outside the timing
  bench::run_timed(state, [&] { cublaslt_matmul<Op>(p); });
  set_flops(state, m, n, k);
}

inline void shapes(benchmark::internal::Benchmark* b) {
  b->Args({4096, 4096, 4096})->Args({8192, 8192, 8192});
  for (int m : {16, 128, 4096})
    for (auto [n, k] : {std::pair{4096, 4096}, std::pair{14336, 4096}, std::pair{4096, 14336}})
      if (!(m == 4096 && n == 4096 && k == 4096)) b->Args({m, n, k});  // 4096^3 is already the first
  b->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.1)->Repetitions(5)->ReportAggregatesOnly(true);
  b->ArgNames({"m", "n", "k"});
}
inline void square_shapes(benchmark::internal::Benchmark* b) {
  b->Args({4096, 4096, 4096})->Args({8192, 8192, 8192});
  b->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.1)->Repetitions(5)->ReportAggregatesOnly(true);
  b->ArgNames({"m", "n", "k"});
}

}  // namespace tessera::bench_gemm
