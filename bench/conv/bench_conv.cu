// Convolution against cuDNN 9, measured in the same binary: Fprop, Dgrad and Wgrad of ResNet-50's
// 3x3 and 1x1 layers at N = 32 and 128 and of a 3-D video layer (NHWC / NDHWC, bf16 and f16, float
// accumulation) through conv::Conv and through cudnnConvolutionForward / BackwardData /
// BackwardFilter with the algorithm cudnnFind...Ex picks (its workspace given: up to 256 MiB); and
// the ResNet block's fused conv + bias + residual + ReLU against our plain conv and against
// cudnnConvolutionBiasActivationForward (y = relu(conv + z + bias)); and MobileNet's depthwise
// layers (the direct kernel of conv/depthwise.hpp) against cuDNN's grouped call and against a
// cudaMemcpy of the input (their floor: GB/s, each tensor moved once). Work: 2 N Z P Q K T R S
// C / g FLOP per direction; the rate is TFLOP/s. The ratio (the other's time over ours) is what
// tessera-perf-report prints.
//
// All three directions run the Hopper kernel (TMA im2col) but strided Dgrad, which runs the sm80
// one: this bench is the scoreboard the kernels are measured on. The stem (C = 3) runs the direct
// small-channel kernel (conv/small_channel.hpp), plain and with its folded batch norm's bias + ReLU.
#include <cudnn.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <typeinfo>

#include "bench_util.hpp"
#include "tessera/conv/conv.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

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
conv::Problem resnet_layer(benchmark::State const& state) {
  conv::Problem p;
  p.n = int(state.range(0)), p.h = int(state.range(1)), p.w = int(state.range(2)), p.c = int(state.range(3)), p.k = int(state.range(4));
  p.r = p.s = int(state.range(5));
  int const pad = p.r / 2;
  p.pad_before = p.pad_after = {0, pad, pad};
  p.stride = {1, int(state.range(6)), int(state.range(6))};
  return p;
}

// A 3-D (video) layer, from {n, d, h, w, c, k, t}: a t x t x t filter, padded to keep the extents.
conv::Problem video_layer(benchmark::State const& state) {
  conv::Problem p;
  p.n = int(state.range(0)), p.d = int(state.range(1)), p.h = int(state.range(2)), p.w = int(state.range(3));
  p.c = int(state.range(4)), p.k = int(state.range(5));
  p.t = p.r = p.s = int(state.range(6));
  int const pad = p.t / 2;
  p.pad_before = p.pad_after = {pad, pad, pad};
  return p;
}
// A depthwise layer (groups = C = K), from {n, h, w, c, r, stride}: an r x r filter, padded r / 2.
conv::Problem depthwise_layer(benchmark::State const& state) {
  conv::Problem p;
  p.n = int(state.range(0)), p.h = int(state.range(1)), p.w = int(state.range(2));
  p.c = p.k = p.groups = int(state.range(3));
  p.r = p.s = int(state.range(4));
  p.pad_before = p.pad_after = {0, p.r / 2, p.r / 2};
  p.stride = {1, int(state.range(5)), int(state.range(5))};
  return p;
}
// A grouped layer, from {n, h, w, c, k, groups}: 3 x 3, padded 1.
conv::Problem grouped_layer(benchmark::State const& state) {
  conv::Problem p;
  p.n = int(state.range(0)), p.h = int(state.range(1)), p.w = int(state.range(2));
  p.c = int(state.range(3)), p.k = int(state.range(4)), p.groups = int(state.range(5));
  p.r = p.s = 3;
  p.pad_before = p.pad_after = {0, 1, 1};
  return p;
}
using MakeProblem = conv::Problem (*)(benchmark::State const&);

void timing(benchmark::internal::Benchmark* b) {
  b->UseManualTime()->MinTime(0.05)->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond);
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
  timing(b);
}

void stem(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "h", "w", "c", "k", "r", "stride"});
  for (int n : {32, 128}) b->Args({n, 224, 224, 3, 64, 7, 2});  // ResNet's stem: RGB, 7x7 stride 2
  timing(b);
}

void video(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "d", "h", "w", "c", "k", "t"});
  b->Args({4, 8, 56, 56, 128, 128, 3});  // a 3x3x3 layer of a video network
  timing(b);
}

void mobilenet(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "h", "w", "c", "r", "stride"});
  b->Args({32, 112, 112, 32, 3, 1});  // MobileNet's depthwise layers
  b->Args({32, 112, 112, 64, 3, 2});
  b->Args({32, 56, 56, 128, 3, 1});
  b->Args({32, 28, 28, 256, 3, 1});
  b->Args({32, 14, 14, 512, 3, 1});
  b->Args({32, 7, 7, 1024, 3, 1});
  b->Args({32, 14, 14, 480, 5, 1});  // a 5x5 one (EfficientNet's)
  timing(b);
}

void grouped(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "h", "w", "c", "k", "groups"});
  b->Args({32, 56, 56, 256, 256, 32});  // ResNeXt-101 32x8d's conv2 3x3: C / g = 8 (the sm80 kernel)
  b->Args({32, 28, 28, 512, 512, 8});   // C / g = 64 (the Hopper kernel)
  timing(b);
}

bool same(conv::Problem const& a, conv::Problem const& b) {
  return a.n == b.n && a.d == b.d && a.h == b.h && a.w == b.w && a.c == b.c && a.k == b.k && a.t == b.t && a.r == b.r && a.s == b.s &&
         a.stride[1] == b.stride[1] && a.groups == b.groups;
}

// The tensors of a problem, random normal (full mantissas), filled on the device; kept between
// benchmarks so that the implementations of one problem share them. The fused rows' bias (K) and
// residual (Y's shape) too.
template <class E>
struct Tensors {
  conv::Problem p;
  E *x = nullptr, *w = nullptr, *y = nullptr, *bias = nullptr, *residual = nullptr;
  explicit Tensors(conv::Problem const& p_) : p(p_) {
    auto make = [&](E*& d, std::int64_t count, unsigned seed) {
      TESSERA_BENCH_CUDA(cudaMalloc(&d, std::size_t(count) * sizeof(E)));
      bench::fill_random(d, std::size_t(count), seed);
    };
    make(x, p.input_elements(), 1);
    make(w, p.filter_elements(), 2);
    make(y, p.output_elements(), 3);
    make(bias, p.k, 4);
    make(residual, p.output_elements(), 5);
  }
  ~Tensors() {
    for (E* d : {x, w, y, bias, residual}) cudaFree(d);
  }
};
template <class E>
Tensors<E>& tensors(conv::Problem const& p) {
  static std::unique_ptr<Tensors<E>> cached;
  if (!cached || !same(cached->p, p)) {
    cached.reset();
    cached = std::make_unique<Tensors<E>>(p);
  }
  return *cached;
}

void counters(benchmark::State& state, conv::Problem const& p) {
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * double(p.macs()) * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
  // A depthwise layer is bound by its bytes (each tensor read or written once): its rate is GB/s.
  if (conv::is_depthwise(p))
    state.counters["GB/s"] = benchmark::Counter(double(p.input_elements() + p.output_elements() + p.filter_elements()) * 2.0 * 1e-9,
                                               benchmark::Counter::kIsIterationInvariantRate);
}

// The Hopper kernel (TMA im2col into the GEMM's sm90 Kernel) with the GEMM's N tile chosen by its
// extent (Fprop K, Dgrad C: a 256-wide tile over 64 columns would compute four times the work)
// and K split automatically; strided Dgrad on the sm80 kernel (cp.async gathers).
template <class E, int BN, int S, class Epi = epilogue::Identity>
using Fprop90 = conv::Config<arch::Sm90, E, E, E, float, conv::Fprop, gemm::BlockTile<128, BN, 64>, gemm::Warpgroups<2>, gemm::Stages<S>, Epi>;
template <class E, int BN, int S>
using Dgrad90 = conv::Config<arch::Sm90, E, E, E, float, conv::Dgrad, gemm::BlockTile<128, BN, 64>, gemm::Warpgroups<2>, gemm::Stages<S>>;
template <class E, int BM>
using Wgrad90 = conv::Config<arch::Sm90, E, E, E, float, conv::Wgrad, gemm::BlockTile<BM, 256, 64>, gemm::Warpgroups<BM / 64>,
                             gemm::Stages<4>>;
// Clusters of two blocks (CM x CN) sharing the tile they have in common (multicast).
template <class E, class Dir, int BN, int S, int CM, int CN>
using Cluster90 = conv::Config<arch::Sm90, E, E, E, float, Dir, gemm::BlockTile<128, BN, 64>,
                               gemm::Warpgroups<2, gemm::Cooperative, gemm::ClusterShape<CM, CN>>, gemm::Stages<S>>;
template <class E, class Dir>
using Conv80 = conv::Config<arch::Sm80, E, E, E, float, Dir, gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<4>>;
// The ResNet block's epilogue: + bias[k], + the shortcut R (Y's shape), ReLU.
template <class E>
using BlockEpi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, E>, epilogue::ResidualAdd<E>, epilogue::Relu>;
// The stem's: its batch norm folded into the filters and a bias, then ReLU.
template <class E>
using StemEpi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, E>, epilogue::Relu>;

template <class Cfg>
void run_tessera(benchmark::State& state, conv::Problem const& p) {
  using E = typename Cfg::ElementX;
  Tensors<E>& t = tensors<E>(p);
  typename conv::Conv<Cfg>::Arguments args;
  args.problem = p;
  args.x = t.x;
  args.w = t.w;
  args.y = t.y;
  if constexpr (std::is_same_v<typename Cfg::Epilogue, StemEpi<E>>)
    args.epilogue = Cfg::Epilogue::make(t.bias);
  else if constexpr (!std::is_same_v<typename Cfg::Epilogue, epilogue::Identity>)
    args.epilogue = Cfg::Epilogue::make(t.bias, epilogue::MatrixRef<E>::row_major(t.residual, p.k));
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

// Fprop's pick, with the epilogue Epi.
template <class E, class Epi>
void run_fprop(benchmark::State& state, conv::Problem const& p) {
  if (p.k_per_group() <= 64) run_tessera<Fprop90<E, 64, 8, Epi>>(state, p);
  else if (p.k_per_group() <= 128) run_tessera<Fprop90<E, 128, 6, Epi>>(state, p);
  else run_tessera<Fprop90<E, 256, 4, Epi>>(state, p);
}

// The library's pick for the problem.
template <class E, class Dir, MakeProblem Make>
void BM_tessera(benchmark::State& state) {
  conv::Problem const p = Make(state);
  if constexpr (std::is_same_v<Dir, conv::Fprop>) {
    // Groups of channels not a multiple of the Hopper k-tile's 64 run the sm80 kernel; the stem's
    // C = 3 runs the small-channel kernel (whichever the Config).
    if (p.c >= 8 && p.c_per_group() % 64 != 0) run_tessera<Conv80<E, Dir>>(state, p);
    else run_fprop<E, epilogue::Identity>(state, p);
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

// The fused ResNet block conv: Fprop + bias + residual + ReLU in the epilogue.
template <class E>
void BM_fused(benchmark::State& state) {
  run_fprop<E, BlockEpi<E>>(state, resnet_layer(state));
}

// One Config on every layer (the rows that show what the pick leaves).
template <class Cfg>
void BM_config(benchmark::State& state) {
  run_tessera<Cfg>(state, resnet_layer(state));
}

// cuDNN's descriptors of a problem: NHWC (NDHWC) tensors, a KRSC (KTRSC) filter, cross-correlation.
template <class E>
struct CudnnConv {
  cudnnTensorDescriptor_t xd{}, yd{}, zd{}, bd{};
  cudnnFilterDescriptor_t wd{};
  cudnnConvolutionDescriptor_t cd{};
  explicit CudnnConv(conv::Problem const& p) {
    TESSERA_BENCH_CUDNN(cudnnCreateTensorDescriptor(&xd));
    TESSERA_BENCH_CUDNN(cudnnCreateTensorDescriptor(&yd));
    TESSERA_BENCH_CUDNN(cudnnCreateTensorDescriptor(&zd));
    TESSERA_BENCH_CUDNN(cudnnCreateTensorDescriptor(&bd));
    TESSERA_BENCH_CUDNN(cudnnCreateFilterDescriptor(&wd));
    TESSERA_BENCH_CUDNN(cudnnCreateConvolutionDescriptor(&cd));
    if (p.d == 1 && p.t == 1) {
      TESSERA_BENCH_CUDNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, cudnn_type<E>, p.n, p.c, p.h, p.w));
      TESSERA_BENCH_CUDNN(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, cudnn_type<E>, p.n, p.k, p.p(), p.q()));
      TESSERA_BENCH_CUDNN(cudnnSetTensor4dDescriptor(zd, CUDNN_TENSOR_NHWC, cudnn_type<E>, p.n, p.k, p.p(), p.q()));
      TESSERA_BENCH_CUDNN(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NHWC, cudnn_type<E>, 1, p.k, 1, 1));
      TESSERA_BENCH_CUDNN(cudnnSetFilter4dDescriptor(wd, cudnn_type<E>, CUDNN_TENSOR_NHWC, p.k, p.c_per_group(), p.r, p.s));
      TESSERA_BENCH_CUDNN(cudnnSetConvolution2dDescriptor(cd, p.pad_before[1], p.pad_before[2], p.stride[1], p.stride[2],
                                                          p.dilation[1], p.dilation[2], CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    } else {
      int const x[5] = {p.n, p.c, p.d, p.h, p.w}, y[5] = {p.n, p.k, p.z(), p.p(), p.q()}, b[5] = {1, p.k, 1, 1, 1},
                f[5] = {p.k, p.c_per_group(), p.t, p.r, p.s};
      TESSERA_BENCH_CUDNN(cudnnSetTensorNdDescriptorEx(xd, CUDNN_TENSOR_NHWC, cudnn_type<E>, 5, x));
      TESSERA_BENCH_CUDNN(cudnnSetTensorNdDescriptorEx(yd, CUDNN_TENSOR_NHWC, cudnn_type<E>, 5, y));
      TESSERA_BENCH_CUDNN(cudnnSetTensorNdDescriptorEx(zd, CUDNN_TENSOR_NHWC, cudnn_type<E>, 5, y));
      TESSERA_BENCH_CUDNN(cudnnSetTensorNdDescriptorEx(bd, CUDNN_TENSOR_NHWC, cudnn_type<E>, 5, b));
      TESSERA_BENCH_CUDNN(cudnnSetFilterNdDescriptor(wd, cudnn_type<E>, CUDNN_TENSOR_NHWC, 5, f));
      int const pad[3] = {p.pad_before[0], p.pad_before[1], p.pad_before[2]};
      TESSERA_BENCH_CUDNN(cudnnSetConvolutionNdDescriptor(cd, 3, pad, p.stride.data(), p.dilation.data(), CUDNN_CROSS_CORRELATION,
                                                          CUDNN_DATA_FLOAT));
    }
    TESSERA_BENCH_CUDNN(cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH));
    TESSERA_BENCH_CUDNN(cudnnSetConvolutionGroupCount(cd, p.groups));
  }
  ~CudnnConv() {
    cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroyFilterDescriptor(wd);
    for (auto d : {xd, yd, zd, bd}) cudnnDestroyTensorDescriptor(d);
  }
};

// cudnnFind...Ex times every algorithm: once per problem, not at each of Google Benchmark's calls.
std::map<std::string, int>& found_algorithms() {
  static std::map<std::string, int> algos;
  return algos;
}
std::string problem_key(char const* what, conv::Problem const& p) {
  std::string key = what;
  for (int v : {p.n, p.d, p.h, p.w, p.c, p.k, p.t, p.r, p.s, p.stride[1], p.groups}) key += "/" + std::to_string(v);
  return key;
}

// cuDNN on the same problem and tensors.
template <class E, class Dir, MakeProblem Make>
void BM_cudnn(benchmark::State& state) {
  conv::Problem const p = Make(state);
  Tensors<E>& t = tensors<E>(p);
  CudnnConv<E> const c(p);
  std::size_t const limit = std::size_t(256) << 20;
  void* workspace = nullptr;
  TESSERA_BENCH_CUDA(cudaMalloc(&workspace, limit));
  float const one = 1.0f, zero = 0.0f;
  int found = 0;
  auto& algos = found_algorithms();
  std::string const key = problem_key(typeid(Tensors<E>).name(), p) + typeid(Dir).name();
  if constexpr (std::is_same_v<Dir, conv::Fprop>) {
    if (!algos.count(key)) {
      cudnnConvolutionFwdAlgoPerf_t perf[8];
      TESSERA_BENCH_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(cudnn(), c.xd, t.x, c.wd, t.w, c.cd, c.yd, t.y, 8, &found, perf, workspace, limit));
      algos[key] = int(perf[0].algo);
    }
    auto const algo = cudnnConvolutionFwdAlgo_t(algos[key]);
    bench::run_timed(state, [&] {
      TESSERA_BENCH_CUDNN(cudnnConvolutionForward(cudnn(), &one, c.xd, t.x, c.wd, t.w, c.cd, algo, workspace, limit, &zero, c.yd, t.y));
    });
  } else if constexpr (std::is_same_v<Dir, conv::Dgrad>) {
    if (!algos.count(key)) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[8];
      TESSERA_BENCH_CUDNN(
          cudnnFindConvolutionBackwardDataAlgorithmEx(cudnn(), c.wd, t.w, c.yd, t.y, c.cd, c.xd, t.x, 8, &found, perf, workspace, limit));
      algos[key] = int(perf[0].algo);
    }
    auto const algo = cudnnConvolutionBwdDataAlgo_t(algos[key]);
    bench::run_timed(state, [&] {
      TESSERA_BENCH_CUDNN(cudnnConvolutionBackwardData(cudnn(), &one, c.wd, t.w, c.yd, t.y, c.cd, algo, workspace, limit, &zero, c.xd, t.x));
    });
  } else {
    if (!algos.count(key)) {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[8];
      TESSERA_BENCH_CUDNN(
          cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnn(), c.xd, t.x, c.yd, t.y, c.cd, c.wd, t.w, 8, &found, perf, workspace, limit));
      algos[key] = int(perf[0].algo);
    }
    auto const algo = cudnnConvolutionBwdFilterAlgo_t(algos[key]);
    bench::run_timed(state, [&] {
      TESSERA_BENCH_CUDNN(cudnnConvolutionBackwardFilter(cudnn(), &one, c.xd, t.x, c.yd, t.y, c.cd, algo, workspace, limit, &zero, c.wd, t.w));
    });
  }
  counters(state, p);
  cudaFree(workspace);
}

// cuDNN's fused call: y = relu(conv(x, w) + 1 z + bias), z the shortcut (Y's shape), with the
// forward algorithm Find picks for the plain conv (or, where the fused call refuses it, implicit
// precomputed GEMM, the one every fused form takes).
template <class E>
void BM_cudnn_fused(benchmark::State& state) {
  conv::Problem const p = resnet_layer(state);
  Tensors<E>& t = tensors<E>(p);
  CudnnConv<E> const c(p);
  cudnnActivationDescriptor_t act{};
  TESSERA_BENCH_CUDNN(cudnnCreateActivationDescriptor(&act));
  TESSERA_BENCH_CUDNN(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  std::size_t const limit = std::size_t(256) << 20;
  void* workspace = nullptr;
  TESSERA_BENCH_CUDA(cudaMalloc(&workspace, limit));
  float const one = 1.0f;
  auto& algos = found_algorithms();
  std::string const key = problem_key(typeid(Tensors<E>).name(), p) + "fused";
  if (!algos.count(key)) {
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int found = 0;
    TESSERA_BENCH_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(cudnn(), c.xd, t.x, c.wd, t.w, c.cd, c.yd, t.y, 8, &found, perf, workspace, limit));
    algos[key] = int(perf[0].algo);
  }
  auto fused = [&](cudnnConvolutionFwdAlgo_t algo) {
    return cudnnConvolutionBiasActivationForward(cudnn(), &one, c.xd, t.x, c.wd, t.w, c.cd, algo, workspace, limit, &one, c.zd,
                                                 t.residual, c.bd, t.bias, act, c.yd, t.y);
  };
  auto algo = cudnnConvolutionFwdAlgo_t(algos[key]);
  if (fused(algo) != CUDNN_STATUS_SUCCESS) algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  if (cudnnStatus_t const s = fused(algo); s != CUDNN_STATUS_SUCCESS) {
    state.SkipWithError(cudnnGetErrorString(s));
  } else {
    bench::run_timed(state, [&] { TESSERA_BENCH_CUDNN(fused(algo)); });
    counters(state, p);
  }
  cudaFree(workspace);
  cudnnDestroyActivationDescriptor(act);
}

// The copy floor of a depthwise layer: cudaMemcpy of its input (read once, written once).
template <class E>
void BM_copy(benchmark::State& state) {
  conv::Problem const p = depthwise_layer(state);
  Tensors<E>& t = tensors<E>(p);
  std::size_t const bytes = std::size_t(std::min(p.input_elements(), p.output_elements())) * sizeof(E);
  bench::run_timed(state, [&] { TESSERA_BENCH_CUDA(cudaMemcpyAsync(t.y, t.x, bytes, cudaMemcpyDeviceToDevice)); });
  state.counters["GB/s"] = benchmark::Counter(2.0 * double(bytes) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(BM_tessera<bfloat16_t, conv::Fprop, resnet_layer>)->Name("conv_bf16_fprop/tessera")->Apply(resnet50);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Fprop, resnet_layer>)->Name("conv_bf16_fprop/cudnn")->Apply(resnet50);
BENCHMARK(BM_tessera<bfloat16_t, conv::Dgrad, resnet_layer>)->Name("conv_bf16_dgrad/tessera")->Apply(resnet50);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Dgrad, resnet_layer>)->Name("conv_bf16_dgrad/cudnn")->Apply(resnet50);
BENCHMARK(BM_tessera<bfloat16_t, conv::Wgrad, resnet_layer>)->Name("conv_bf16_wgrad/tessera")->Apply(resnet50);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Wgrad, resnet_layer>)->Name("conv_bf16_wgrad/cudnn")->Apply(resnet50);
BENCHMARK(BM_config<Fprop90<bfloat16_t, 64, 8>>)->Name("conv_bf16_fprop/tessera_128x64_s8")->Apply(resnet50);
BENCHMARK(BM_config<Fprop90<bfloat16_t, 128, 6>>)->Name("conv_bf16_fprop/tessera_128x128_s6")->Apply(resnet50);
BENCHMARK(BM_config<Fprop90<bfloat16_t, 256, 4>>)->Name("conv_bf16_fprop/tessera_128x256_s4")->Apply(resnet50);
// Clusters: Fprop shares A's im2col boxes along N (1 x 2), Wgrad X's boxes along M (2 x 1); against
// tessera_128x256_s4 and the Wgrad pick (docs/performance.md: slower on every layer measured).
BENCHMARK(BM_config<Cluster90<bfloat16_t, conv::Fprop, 256, 4, 1, 2>>)->Name("conv_bf16_fprop/tessera_128x256_s4_c1x2")->Apply(resnet50);
BENCHMARK(BM_config<Cluster90<bfloat16_t, conv::Wgrad, 256, 4, 2, 1>>)->Name("conv_bf16_wgrad/tessera_128x256_s4_c2x1")->Apply(resnet50);
BENCHMARK(BM_tessera<half_t, conv::Fprop, resnet_layer>)->Name("conv_f16_fprop/tessera")->Apply(resnet50);
BENCHMARK(BM_cudnn<half_t, conv::Fprop, resnet_layer>)->Name("conv_f16_fprop/cudnn")->Apply(resnet50);
BENCHMARK(BM_tessera<half_t, conv::Dgrad, resnet_layer>)->Name("conv_f16_dgrad/tessera")->Apply(resnet50);
BENCHMARK(BM_cudnn<half_t, conv::Dgrad, resnet_layer>)->Name("conv_f16_dgrad/cudnn")->Apply(resnet50);
BENCHMARK(BM_tessera<half_t, conv::Wgrad, resnet_layer>)->Name("conv_f16_wgrad/tessera")->Apply(resnet50);
BENCHMARK(BM_cudnn<half_t, conv::Wgrad, resnet_layer>)->Name("conv_f16_wgrad/cudnn")->Apply(resnet50);
// The ResNet block's conv with its bias, shortcut and ReLU fused, against our plain conv and cuDNN's fused call.
BENCHMARK(BM_fused<bfloat16_t>)->Name("conv_bf16_block/tessera")->Apply(resnet50);
BENCHMARK(BM_tessera<bfloat16_t, conv::Fprop, resnet_layer>)->Name("conv_bf16_block/tessera_plain")->Apply(resnet50);
BENCHMARK(BM_cudnn_fused<bfloat16_t>)->Name("conv_bf16_block/cudnn_fused")->Apply(resnet50);
// The stem (C = 3): the small-channel kernel, plain and with the bias + ReLU fused.
BENCHMARK(BM_tessera<bfloat16_t, conv::Fprop, resnet_layer>)->Name("conv_bf16_stem/tessera")->Apply(stem);
BENCHMARK(BM_config<Fprop90<bfloat16_t, 64, 8, StemEpi<bfloat16_t>>>)->Name("conv_bf16_stem/tessera_bias_relu")->Apply(stem);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Fprop, resnet_layer>)->Name("conv_bf16_stem/cudnn")->Apply(stem);
// 3-D.
BENCHMARK(BM_tessera<bfloat16_t, conv::Fprop, video_layer>)->Name("conv3d_bf16_fprop/tessera")->Apply(video);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Fprop, video_layer>)->Name("conv3d_bf16_fprop/cudnn")->Apply(video);
BENCHMARK(BM_tessera<bfloat16_t, conv::Dgrad, video_layer>)->Name("conv3d_bf16_dgrad/tessera")->Apply(video);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Dgrad, video_layer>)->Name("conv3d_bf16_dgrad/cudnn")->Apply(video);
BENCHMARK(BM_tessera<bfloat16_t, conv::Wgrad, video_layer>)->Name("conv3d_bf16_wgrad/tessera")->Apply(video);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Wgrad, video_layer>)->Name("conv3d_bf16_wgrad/cudnn")->Apply(video);

// Depthwise (the direct kernel), against cuDNN and the copy of the input.
BENCHMARK(BM_tessera<bfloat16_t, conv::Fprop, depthwise_layer>)->Name("conv_bf16_depthwise/tessera")->Apply(mobilenet);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Fprop, depthwise_layer>)->Name("conv_bf16_depthwise/cudnn")->Apply(mobilenet);
// Grouped layers (ResNeXt's): all groups in one launch.
BENCHMARK(BM_tessera<bfloat16_t, conv::Fprop, grouped_layer>)->Name("conv_bf16_grouped/tessera")->Apply(grouped);
BENCHMARK(BM_cudnn<bfloat16_t, conv::Fprop, grouped_layer>)->Name("conv_bf16_grouped/cudnn")->Apply(grouped);
BENCHMARK(BM_copy<bfloat16_t>)->Name("conv_bf16_depthwise/copy")->Apply(mobilenet);

TESSERA_BENCH_MAIN()
