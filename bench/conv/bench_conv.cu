// Convolution against cuDNN 9, measured in the same binary: Fprop, Dgrad and Wgrad of ResNet-50's
// 3x3 and 1x1 layers (NHWC, bf16 and f16, float accumulation) through conv::Conv and through
// cudnnConvolutionForward / BackwardData / BackwardFilter with the algorithm cudnnFind...Ex picks
// (its workspace given: up to 256 MiB). Work: 2 N P Q K R S C FLOP per direction; the rate is
// TFLOP/s. The ratio (cuDNN's time over ours) is what tessera-perf-report prints.
//
// All three directions run the Hopper kernel (TMA im2col) but strided Dgrad, which runs the sm80
// one: this bench is the scoreboard the kernels are measured on. Layers with C = 3 (the stem) need
// the small-channel path and are not here yet.
#include <cudnn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <typeinfo>

#include "bench_util.hpp"
#include "tessera/conv/conv.hpp"

using namespace tessera;

#define TESSERA_BENCH_CUDNN(expr)                                                                  \
  do {                                                                                             \
    cudnnStatus_t _s = (expr);                                                                     \
    if (_s != CUDNN_STATUS_SUCCESS) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudnnGetErrorString(_s)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace {

template <class E>
constexpr cudnnDataType_t cudnn_type = std::is_same_v<E, bfloat16_t> ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;

cudnnHandle_t cudnn() {
  static cudnnHandle_t h = [] {
    cudnnHandle_t x;
    TESSERA_BENCH_CUDNN(cudnnCreate(&x));
    return x;
  }();
  return h;
}

// A ResNet-50 layer (2-D), from the benchmark's arguments {n, h, w, c, k, r, stride}.
conv::Problem layer(benchmark::State const& state) {
  conv::Problem p;
  p.n = int(state.range(0)), p.h = int(state.range(1)), p.w = int(state.range(2)), p.c = int(state.range(3)), p.k = int(state.range(4));
  p.r = p.s = int(state.range(5));
  int const pad = p.r / 2;
  p.pad_before = p.pad_after = {0, pad, pad};
  p.stride = {1, int(state.range(6)), int(state.range(6))};
  return p;
}

void resnet50(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "h", "w", "c", "k", "r", "stride"});
  for (int n : {32, 128}) {
    b->Args({n, 56, 56, 64, 64, 3, 1});     // conv2_x 3x3
    b->Args({n, 56, 56, 64, 256, 1, 1});    // conv2_x 1x1 expand
    b->Args({n, 56, 56, 256, 64, 1, 1});    // conv2_x 1x1 reduce
    b->Args({n, 28, 28, 128, 128, 3, 1});   // conv3_x 3x3
    b->Args({n, 28, 28, 512, 128, 1, 1});   // conv3_x 1x1 reduce
    b->Args({n, 14, 14, 256, 256, 3, 1});   // conv4_x 3x3
    b->Args({n, 14, 14, 1024, 256, 1, 1});  // conv4_x 1x1 reduce
    b->Args({n, 7, 7, 512, 512, 3, 1});     // conv5_x 3x3
    b->Args({n, 56, 56, 128, 128, 3, 2});   // conv3_1 3x3 stride 2
  }
  b->UseManualTime()->MinTime(0.05)->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond);
}

// The tensors of a problem, random normal (full mantissas), filled on the device; kept between
// benchmarks so that the implementations of one problem share them.
template <class E>
struct Tensors {
  conv::Problem p;
  E *x = nullptr, *w = nullptr, *y = nullptr;
  explicit Tensors(conv::Problem const& p_) : p(p_) {
    auto make = [&](E*& d, std::int64_t count, unsigned seed) {
      TESSERA_BENCH_CUDA(cudaMalloc(&d, std::size_t(count) * sizeof(E)));
      bench::fill_random(d, std::size_t(count), seed);
    };
    make(x, p.input_elements(), 1);
    make(w, p.filter_elements(), 2);
    make(y, p.output_elements(), 3);
  }
  ~Tensors() {
    cudaFree(x);
    cudaFree(w);
    cudaFree(y);
  }
};
template <class E>
Tensors<E>& tensors(conv::Problem const& p) {
  static std::unique_ptr<Tensors<E>> cached;
  auto const same = [&](conv::Problem const& q) {
    return q.n == p.n && q.h == p.h && q.w == p.w && q.c == p.c && q.k == p.k && q.r == p.r && q.stride[1] == p.stride[1];
  };
  if (!cached || !same(cached->p)) {
    cached.reset();
    cached = std::make_unique<Tensors<E>>(p);
  }
  return *cached;
}

void counters(benchmark::State& state, conv::Problem const& p) {
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * double(p.macs()) * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
}

// The Hopper kernel (TMA im2col into the GEMM's sm90 Kernel) with the GEMM's N tile chosen by its
// extent (Fprop K, Dgrad C: a 256-wide tile over 64 columns would compute four times the work)
// and Wgrad split automatically; strided Dgrad on the sm80 kernel (cp.async gathers).
template <class E, int BN, int S>
using Fprop90 = conv::Config<arch::Sm90, E, E, E, float, conv::Fprop, gemm::BlockTile<128, BN, 64>, gemm::Warpgroups<2>, gemm::Stages<S>>;
template <class E, int BN, int S>
using Dgrad90 = conv::Config<arch::Sm90, E, E, E, float, conv::Dgrad, gemm::BlockTile<128, BN, 64>, gemm::Warpgroups<2>, gemm::Stages<S>>;
template <class E, int BM>
using Wgrad90 = conv::Config<arch::Sm90, E, E, E, float, conv::Wgrad, gemm::BlockTile<BM, 256, 64>, gemm::Warpgroups<BM / 64>,
                             gemm::Stages<4>>;
template <class E, class Dir>
using Conv80 = conv::Config<arch::Sm80, E, E, E, float, Dir, gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<4>>;

template <class Cfg>
void run_tessera(benchmark::State& state, conv::Problem const& p) {
  using E = typename Cfg::ElementX;
  Tensors<E>& t = tensors<E>(p);
  typename conv::Conv<Cfg>::Arguments args;
  args.problem = p;
  args.x = t.x;
  args.w = t.w;
  args.y = t.y;
  // K split automatically where the output tiles alone cannot fill the GPU (Wgrad's K, N P Q, is
  // long and its output small; the 7 x 7 layers have few output tiles).
  args.split_k = 0;
  void* workspace = nullptr;
  std::size_t const bytes = conv::Conv<Cfg>::workspace_size(args);
  if (bytes > 0) TESSERA_BENCH_CUDA(cudaMalloc(&workspace, bytes));
  if (Status const s = conv::Conv<Cfg>::can_implement(args); !s) {
    state.SkipWithError(s.message().c_str());
    cudaFree(workspace);
    return;
  }
  bench::run_timed(state, [&] { (void)conv::Conv<Cfg>{}.run(args, workspace); });
  counters(state, p);
  cudaFree(workspace);
}

// The library's pick for the problem.
template <class E, class Dir>
void BM_tessera(benchmark::State& state) {
  conv::Problem const p = layer(state);
  if constexpr (std::is_same_v<Dir, conv::Fprop>) {
    if (p.k <= 64) run_tessera<Fprop90<E, 64, 8>>(state, p);
    else if (p.k <= 128) run_tessera<Fprop90<E, 128, 6>>(state, p);
    else run_tessera<Fprop90<E, 256, 4>>(state, p);
  } else if constexpr (std::is_same_v<Dir, conv::Dgrad>) {
    // Strided Dgrad runs the sm80 kernel (which computes the terms the stride leaves zero).
    if (p.stride[1] > 1) run_tessera<Conv80<E, Dir>>(state, p);
    else if (p.c <= 64) run_tessera<Dgrad90<E, 64, 8>>(state, p);
    else if (p.c <= 128) run_tessera<Dgrad90<E, 128, 6>>(state, p);
    else run_tessera<Dgrad90<E, 256, 4>>(state, p);
  } else {
    if (p.k <= 64) run_tessera<Wgrad90<E, 64>>(state, p);
    else run_tessera<Wgrad90<E, 128>>(state, p);
  }
}

// One Config on every layer (the rows that show what the pick leaves).
template <class Cfg>
void BM_config(benchmark::State& state) {
  run_tessera<Cfg>(state, layer(state));
}

// cuDNN on the same problem and tensors: NHWC descriptors, the filter KRSC, cross-correlation.
template <class E, class Dir>
void BM_cudnn(benchmark::State& state) {
  conv::Problem const p = layer(state);
  Tensors<E>& t = tensors<E>(p);
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  TESSERA_BENCH_CUDNN(cudnnCreateTensorDescriptor(&xd));
  TESSERA_BENCH_CUDNN(cudnnCreateTensorDescriptor(&yd));
  TESSERA_BENCH_CUDNN(cudnnCreateFilterDescriptor(&wd));
  TESSERA_BENCH_CUDNN(cudnnCreateConvolutionDescriptor(&cd));
  TESSERA_BENCH_CUDNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, cudnn_type<E>, p.n, p.c, p.h, p.w));
  TESSERA_BENCH_CUDNN(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, cudnn_type<E>, p.n, p.k, p.p(), p.q()));
  TESSERA_BENCH_CUDNN(cudnnSetFilter4dDescriptor(wd, cudnn_type<E>, CUDNN_TENSOR_NHWC, p.k, p.c_per_group(), p.r, p.s));
  TESSERA_BENCH_CUDNN(cudnnSetConvolution2dDescriptor(cd, p.pad_before[1], p.pad_before[2], p.stride[1], p.stride[2], p.dilation[1],
                                                      p.dilation[2], CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  TESSERA_BENCH_CUDNN(cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH));
  TESSERA_BENCH_CUDNN(cudnnSetConvolutionGroupCount(cd, p.groups));
  std::size_t const limit = std::size_t(256) << 20;
  void* workspace = nullptr;
  TESSERA_BENCH_CUDA(cudaMalloc(&workspace, limit));
  float const one = 1.0f, zero = 0.0f;
  int found = 0;
  // cudnnFind...Ex times every algorithm: once per problem, not at each of Google Benchmark's calls.
  static std::map<std::string, int> algos;
  std::string key = std::string(typeid(E).name()) + typeid(Dir).name();
  for (int i = 0; i < 7; ++i) key += "/" + std::to_string(state.range(i));
  if constexpr (std::is_same_v<Dir, conv::Fprop>) {
    if (!algos.count(key)) {
      cudnnConvolutionFwdAlgoPerf_t perf[8];
      TESSERA_BENCH_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(cudnn(), xd, t.x, wd, t.w, cd, yd, t.y, 8, &found, perf, workspace, limit));
      algos[key] = int(perf[0].algo);
    }
    auto const algo = cudnnConvolutionFwdAlgo_t(algos[key]);
    bench::run_timed(state, [&] {
      TESSERA_BENCH_CUDNN(cudnnConvolutionForward(cudnn(), &one, xd, t.x, wd, t.w, cd, algo, workspace, limit, &zero, yd, t.y));
    });
  } else if constexpr (std::is_same_v<Dir, conv::Dgrad>) {
    if (!algos.count(key)) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[8];
      TESSERA_BENCH_CUDNN(
          cudnnFindConvolutionBackwardDataAlgorithmEx(cudnn(), wd, t.w, yd, t.y, cd, xd, t.x, 8, &found, perf, workspace, limit));
      algos[key] = int(perf[0].algo);
    }
    auto const algo = cudnnConvolutionBwdDataAlgo_t(algos[key]);
    bench::run_timed(state, [&] {
      TESSERA_BENCH_CUDNN(cudnnConvolutionBackwardData(cudnn(), &one, wd, t.w, yd, t.y, cd, algo, workspace, limit, &zero, xd, t.x));
    });
  } else {
    if (!algos.count(key)) {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[8];
      TESSERA_BENCH_CUDNN(
          cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnn(), xd, t.x, yd, t.y, cd, wd, t.w, 8, &found, perf, workspace, limit));
      algos[key] = int(perf[0].algo);
    }
    auto const algo = cudnnConvolutionBwdFilterAlgo_t(algos[key]);
    bench::run_timed(state, [&] {
      TESSERA_BENCH_CUDNN(cudnnConvolutionBackwardFilter(cudnn(), &one, xd, t.x, yd, t.y, cd, algo, workspace, limit, &zero, wd, t.w));
    });
  }
  counters(state, p);
  cudaFree(workspace);
  cudnnDestroyConvolutionDescriptor(cd);
  cudnnDestroyFilterDescriptor(wd);
  cudnnDestroyTensorDescriptor(yd);
  cudnnDestroyTensorDescriptor(xd);
}

}  // namespace

BENCHMARK(BM_tessera<bfloat16_t, conv::Fprop>)->Name("conv_bf16_fprop/tessera")->Apply(resnet50);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Fprop>)->Name("conv_bf16_fprop/cudnn")->Apply(resnet50);
BENCHMARK(BM_tessera<bfloat16_t, conv::Dgrad>)->Name("conv_bf16_dgrad/tessera")->Apply(resnet50);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Dgrad>)->Name("conv_bf16_dgrad/cudnn")->Apply(resnet50);
BENCHMARK(BM_tessera<bfloat16_t, conv::Wgrad>)->Name("conv_bf16_wgrad/tessera")->Apply(resnet50);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Wgrad>)->Name("conv_bf16_wgrad/cudnn")->Apply(resnet50);
BENCHMARK(BM_config<Fprop90<bfloat16_t, 64, 8>>)->Name("conv_bf16_fprop/tessera_128x64_s8")->Apply(resnet50);
BENCHMARK(BM_config<Fprop90<bfloat16_t, 128, 6>>)->Name("conv_bf16_fprop/tessera_128x128_s6")->Apply(resnet50);
BENCHMARK(BM_config<Fprop90<bfloat16_t, 256, 4>>)->Name("conv_bf16_fprop/tessera_128x256_s4")->Apply(resnet50);
BENCHMARK(BM_tessera<half_t, conv::Fprop>)->Name("conv_f16_fprop/tessera")->Apply(resnet50);
BENCHMARK(BM_cudnn<half_t, conv::Fprop>)->Name("conv_f16_fprop/cudnn")->Apply(resnet50);

TESSERA_BENCH_MAIN()
