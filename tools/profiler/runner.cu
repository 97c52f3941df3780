#include "runner.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "device_common.cuh"
#include "tessera/core/numeric_types.hpp"
#include "tessera/core/rounding.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/tuning/register_gemm.hpp"

namespace tessera::profiler {

namespace {

using tuning::FusedEpilogue;

// f.template operator()<EA, ED>() for the problem's element types.
template <class F>
Status with_types(gemm::Dtype a, F&& f) {
  switch (a) {
    case gemm::Dtype::kBf16: return f.template operator()<bfloat16_t, bfloat16_t>();
    case gemm::Dtype::kF16: return f.template operator()<half_t, half_t>();
    case gemm::Dtype::kF32: return f.template operator()<float, float>();
    case gemm::Dtype::kInt8: return f.template operator()<std::int8_t, std::int32_t>();
    case gemm::Dtype::kE4m3: return f.template operator()<float8_e4m3_t, bfloat16_t>();
    default: return Status::invalid_argument(std::string("no reference for dtype ") + gemm::dtype_name(a));
  }
}

struct RefShape {
  int m, n, k, batch;
  std::int64_t a_row, a_k, a_batch;  // A(i, kk) at i * a_row + kk * a_k (+ batch)
  std::int64_t b_k, b_col, b_batch;  // B(kk, j) at kk * b_k + j * b_col
};

// The reference: 16 x 16 outputs per block, K in steps of 16 through shared memory, products and
// their magnitudes summed in double; the epilogue applied as the kernels apply it; D's rounding.
template <class EA, class EB, class ED>
__global__ void reference_kernel(EA const* a, EB const* b, RefShape s, FusedEpilogue<ED> epi, double* want, float* mag) {
  __shared__ double sa[16][17], sb[16][17];
  int const tx = threadIdx.x, ty = threadIdx.y, bt = blockIdx.z;
  int const i = blockIdx.y * 16 + ty, j = blockIdx.x * 16 + tx;
  double acc = 0, magnitude = 0;
  for (int k0 = 0; k0 < s.k; k0 += 16) {
    int const ai = blockIdx.y * 16 + ty, ak = k0 + tx;
    sa[ty][tx] = ai < s.m && ak < s.k ? to_double(a[bt * s.a_batch + ai * s.a_row + ak * s.a_k]) : 0.0;
    int const bk = k0 + ty, bj = blockIdx.x * 16 + tx;
    sb[ty][tx] = bk < s.k && bj < s.n ? to_double(b[bt * s.b_batch + bk * s.b_k + bj * s.b_col]) : 0.0;
    __syncthreads();
    for (int kk = 0; kk < 16; ++kk) {
      double const p = sa[ty][kk] * sb[kk][tx];
      acc += p;
      magnitude += fabs(p);
    }
    __syncthreads();
  }
  if (i < s.m && j < s.n) {
    float const y = epi(float(acc), epilogue::Coord{i, j, bt});
    std::size_t const at = (std::size_t(bt) * s.m + i) * s.n + j;
    want[at] = to_double(epilogue::convert_output<ED>(y));
    mag[at] = float(magnitude);
  }
}

}  // namespace

struct GemmRunner::Buffers {
  Allocation a, b, c, residual, bias, scale, shift;
};

Status check_gpu() {
  int count = 0;
  cudaError_t const e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    return Status::device_error("no CUDA GPU is available (" + (e != cudaSuccess ? cuda_message(e) : std::string("0 devices")) +
                                "); `tessera-profile list gemm` (or `list conv`, `list attention`) shows the configurations without one");
  return Status::success();
}

DeviceRunner::DeviceRunner(TimingSettings settings) : settings_(settings), common_(new Common) {
  int const pairs = std::max(settings_.max_iterations, settings_.min_iterations) + 1;
  common_->start.resize(std::size_t(pairs));
  common_->stop.resize(std::size_t(pairs));
  for (int i = 0; i < pairs; ++i) {
    cudaEventCreate(&common_->start[std::size_t(i)]);
    cudaEventCreate(&common_->stop[std::size_t(i)]);
  }
}

DeviceRunner::~DeviceRunner() {
  for (auto e : common_->start) cudaEventDestroy(e);
  for (auto e : common_->stop) cudaEventDestroy(e);
  delete common_;
}

GemmRunner::GemmRunner(TimingSettings settings) : DeviceRunner(settings), buffers_(new Buffers) {}

GemmRunner::~GemmRunner() { delete buffers_; }

std::string DeviceRunner::device_name() const {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "unknown device";
  return prop.name;
}

int DeviceRunner::compute_capability() const {
  int device = 0, major = 0, minor = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  return major * 10 + minor;
}

DeviceModel DeviceRunner::model() const {
  DeviceModel m = h100();
  int device = 0, sms = 0, clock_khz = 0, mem_khz = 0, bus_bits = 0, smem = 0;
  cudaGetDevice(&device);
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess && sms > 0) m.sms = sms;
  m.cc = compute_capability();
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device) == cudaSuccess && clock_khz > 0)
    m.clock_ghz = clock_khz * 1e-6;
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess && mem_khz > 0 && bus_bits > 0) {
    m.dram_gbps = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) * 1e-9 * 0.8;  // double data rate, 80% achievable
    m.l2_gbps = m.dram_gbps / 0.8 * 3.0;
  }
  if (cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) == cudaSuccess && smem > 0) m.smem_per_sm = smem;
  return m;
}

Status DeviceRunner::prepare_flush() {
  if (!settings_.flush_l2) return Status::success();
  int device = 0, l2 = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
  if (common_->flush.reserve(std::size_t(std::max(l2, 1 << 20)) * 2) != cudaSuccess)
    return Status::device_error("allocating the L2 flush buffer failed");
  return Status::success();
}

Status GemmRunner::prepare(GemmSetup const& setup) {
  setup_ = setup;
  return with_types(setup.types.a, [&]<class EA, class ED>() -> Status {
    using EB = EA;
    Buffers& B = *buffers_;
    Common& C = *common_;
    ProblemShape const& s = setup.shape;
    std::size_t const mk = std::size_t(s.m) * s.k, nk = std::size_t(s.n) * s.k, mn = std::size_t(s.m) * s.n;
    std::size_t const batch = std::size_t(s.batch);
    tuning::EpilogueStages const& e = setup.epilogue;
    double const u_acc = std::is_same_v<EA, float> ? std::ldexp(1.0, -10)
                         : std::is_same_v<EA, float8_e4m3_t> ? std::ldexp(1.0, -13)
                         : std::is_integral_v<EA> ? 0.0 : std::ldexp(1.0, -22);
    if (cudaError_t err = C.use_output<ED>(mn * batch, {unit_roundoff<ED>(), subnormal_spacing<ED>(), u_acc,
                                                        std::is_integral_v<ED> && e.any() ? 1.0 : 0.0});
        err != cudaSuccess)
      return Status::device_error("allocating D and its reference: " + cuda_message(err));
    auto const reserve = [&](Allocation& x, std::size_t bytes) { return x.reserve(std::max<std::size_t>(bytes, 16)); };
    for (auto [x, bytes] : {std::pair{&B.a, mk * batch * sizeof(EA)}, std::pair{&B.b, nk * batch * sizeof(EB)}})
      if (cudaError_t err = reserve(*x, bytes); err != cudaSuccess) return Status::device_error("allocating the operands: " + cuda_message(err));
    if (e.linear && reserve(B.c, mn * batch * sizeof(ED)) != cudaSuccess) return Status::device_error("allocating C failed");
    if (e.residual && reserve(B.residual, mn * batch * sizeof(ED)) != cudaSuccess) return Status::device_error("allocating R failed");
    if (e.bias && reserve(B.bias, std::size_t(s.n) * sizeof(ED)) != cudaSuccess) return Status::device_error("allocating the bias failed");
    if (e.scale_shift && (reserve(B.scale, std::size_t(s.n) * sizeof(ED)) != cudaSuccess || reserve(B.shift, std::size_t(s.n) * sizeof(ED)) != cudaSuccess))
      return Status::device_error("allocating scale and shift failed");
    TESSERA_RETURN_IF_ERROR(prepare_flush());
    fill(static_cast<EA*>(B.a.ptr), mk * batch, 1);
    fill(static_cast<EB*>(B.b.ptr), nk * batch, 2);
    if (e.linear) fill(static_cast<ED*>(B.c.ptr), mn * batch, 3);
    if (e.residual) fill(static_cast<ED*>(B.residual.ptr), mn * batch, 4);
    if (e.bias) fill(static_cast<ED*>(B.bias.ptr), std::size_t(s.n), 5);
    if (e.scale_shift) {
      fill(static_cast<ED*>(B.scale.ptr), std::size_t(s.n), 6);
      fill(static_cast<ED*>(B.shift.ptr), std::size_t(s.n), 7);
    }

    tuning::GemmProblem p;
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    p.batch_count = s.batch;
    p.a_type = setup.types.a;
    p.b_type = setup.types.b;
    p.d_type = setup.types.d;
    p.a_k_major = setup.layout.a_k_major;
    p.b_k_major = setup.layout.b_k_major;
    p.a = B.a.ptr;
    p.lda = p.a_k_major ? s.k : s.m;
    p.b = B.b.ptr;
    p.ldb = p.b_k_major ? s.k : s.n;
    p.d = C.out.ptr;
    p.ldd = s.n;
    p.batch_stride_a = s.batch > 1 ? std::int64_t(mk) : 0;
    p.batch_stride_b = s.batch > 1 ? std::int64_t(nk) : 0;
    p.batch_stride_d = s.batch > 1 ? std::int64_t(mn) : 0;
    p.split_k = 0;
    p.epilogue = e;
    p.operands = {0.5f, 0.25f, B.c.ptr, s.n, B.bias.ptr, B.scale.ptr, B.shift.ptr, -2.0f, 2.0f, B.residual.ptr, s.n};
    problem_ = p;

    RefShape r{s.m, s.n, s.k, s.batch, p.a_k_major ? p.lda : 1, p.a_k_major ? 1 : p.lda, std::int64_t(mk),
               p.b_k_major ? 1 : p.ldb, p.b_k_major ? p.ldb : 1, std::int64_t(nk)};
    auto const epi = tuning::detail::make_fused<ED>(e, p.operands, p.d_order, p.batch_count, p.batch_stride_d);
    dim3 const grid(unsigned((s.n + 15) / 16), unsigned((s.m + 15) / 16), unsigned(s.batch));
    reference_kernel<EA, EB, ED><<<grid, dim3(16, 16)>>>(static_cast<EA const*>(B.a.ptr), static_cast<EB const*>(B.b.ptr), r, epi,
                                                         static_cast<double*>(C.want.ptr), static_cast<float*>(C.mag.ptr));
    if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) return Status::device_error("the reference failed: " + cuda_message(err));
    return Status::success();
  });
}

Result GemmRunner::blank_result(std::string name) const {
  Result r;
  r.kernel = std::move(name);
  r.dtype = setup_.types.name;
  r.layout = setup_.layout.name;
  r.epilogue = tuning::epilogue_name(setup_.epilogue);
  r.m = setup_.shape.m;
  r.n = setup_.shape.n;
  r.k = setup_.shape.k;
  r.batch = setup_.shape.batch;
  return r;
}

Result GemmRunner::run(tuning::GemmKernel const& kernel, bool swap_ab) {
  Result r = not_run(blank_result(kernel.name + (swap_ab ? "_swap" : "")));
  if (r.outcome == Outcome::kError) return r;
  if (Status s = kernel.can_implement(problem_, swap_ab); !s) return fail(r, Outcome::kSkipped, s.message());
  std::size_t const ws = kernel.workspace_size(problem_, swap_ab);
  Allocation& workspace = common_->workspace;
  if (cudaError_t e = workspace.reserve(std::max<std::size_t>(ws, 16)); e != cudaSuccess)
    return fail(r, Outcome::kError, "allocating " + std::to_string(ws) + " bytes of workspace: " + cuda_message(e));
  tuning::GemmProblem p = problem_;
  // The verified run zeroes its own counters; timed runs find them zero (workspace_zeroed), as in
  // an application's loop.
  return verify_and_time(std::move(r), [&](bool timed) {
    p.workspace_zeroed = timed;
    return kernel.run(p, swap_ab, workspace.ptr);
  });
}

Result GemmRunner::run(CublasBaseline& cublas) {
  Result r = not_run(blank_result(kCublasName));
  if (r.outcome == Outcome::kError) return r;
  if (Status s = cublas.plan(problem_); !s) return fail(r, Outcome::kSkipped, s.message());
  return verify_and_time(std::move(r), [&](bool) { return cublas.run(); });
}

Result DeviceRunner::fail(Result r, Outcome o, std::string message) {
  r.outcome = o;
  r.message = std::move(message);
  return r;
}

Result DeviceRunner::not_run(Result r) const {
  if (broken_.empty()) return r;
  return fail(std::move(r), Outcome::kError, "not run: an earlier launch left the GPU in error (" + broken_ + ")");
}

Result DeviceRunner::verify_and_time(Result r, std::function<Status(bool timed)> const& launch) {
  Common& C = *common_;
  auto const sticky = [&](cudaError_t e) {
    broken_ = cuda_message(e);
    return fail(r, Outcome::kError, broken_);
  };
  // Verification: the output (and a second one) poisoned (0xFF: NaN for floats), one run.
  cudaMemset(C.out.ptr, 0xFF, C.out_count * std::size_t(C.out_bytes));
  if (C.second) C.second->poison();
  if (Status s = launch(false); !s) return fail(r, Outcome::kError, s.message());
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return sticky(e);
  unsigned worst_bits = 0, second_bits = 0;
  unsigned long long bad = 0, second_bad = 0;
  if (Status s = C.compare(C, worst_bits, bad); !s) return fail(r, Outcome::kError, s.message());
  if (C.second)
    if (Status s = C.second->compare(second_bits, second_bad); !s) return fail(r, Outcome::kError, s.message());
  float worst = 0, second_worst = 0;
  std::memcpy(&worst, &worst_bits, sizeof worst);
  std::memcpy(&second_worst, &second_bits, sizeof second_worst);
  r.error_ratio = std::max(worst, second_worst);
  if (bad > 0 || second_bad > 0) {
    std::string m = std::to_string(bad) + " of " + std::to_string(C.out_count) + " elements differ from the reference (worst |error| = " +
                    std::to_string(worst) + " x tolerance)";
    if (C.second)
      m += "; " + std::to_string(second_bad) + " of " + std::to_string(C.second->count) + " " + C.second->name + " values do (worst " +
           std::to_string(second_worst) + " x tolerance)";
    return fail(r, Outcome::kWrong, m);
  }

  // Timing: device events around each run, the L2 flushed before each, the median.
  for (int i = 0; i < settings_.warmup; ++i)
    if (Status s = launch(true); !s) return fail(r, Outcome::kError, s.message());
  cudaEventRecord(C.start[0]);
  Status const once = launch(true);
  cudaEventRecord(C.stop[0]);
  if (!once) return fail(r, Outcome::kError, once.message());
  if (cudaError_t e = cudaEventSynchronize(C.stop[0]); e != cudaSuccess) return sticky(e);
  float estimate_ms = 0;
  cudaEventElapsedTime(&estimate_ms, C.start[0], C.stop[0]);
  int const iterations = std::clamp(int(settings_.target_ms / std::max(estimate_ms, 1e-3f)), settings_.min_iterations,
                                    std::max(settings_.min_iterations, settings_.max_iterations));
  for (int i = 0; i < iterations; ++i) {
    if (settings_.flush_l2) cudaMemsetAsync(C.flush.ptr, i & 0xFF, C.flush.bytes);
    cudaEventRecord(C.start[std::size_t(i)]);
    Status const s = launch(true);
    cudaEventRecord(C.stop[std::size_t(i)]);
    if (!s) return fail(r, Outcome::kError, s.message());
  }
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return sticky(e);
  std::vector<float> ms(static_cast<std::size_t>(iterations));
  for (int i = 0; i < iterations; ++i) cudaEventElapsedTime(&ms[std::size_t(i)], C.start[std::size_t(i)], C.stop[std::size_t(i)]);
  std::nth_element(ms.begin(), ms.begin() + iterations / 2, ms.end());
  r.time_us = double(ms[std::size_t(iterations / 2)]) * 1e3;
  r.outcome = Outcome::kPassed;
  return r;
}

}  // namespace tessera::profiler
