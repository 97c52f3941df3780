#include "attention_runner.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "device_common.cuh"
#include "tessera/attention/coord.hpp"
#include "tessera/core/numeric_types.hpp"

namespace tessera::profiler {

namespace {

constexpr int kReferenceWarps = 4;  // a warp per query row, four to a block

// The reference: a warp per query (batch entry, head, position). Pass 1: each lane takes every
// 32nd key, its score q . k in double, scaled and rounded to float as the kernels' chain sees it,
// through the chain; the row's max and sum of exponentials in double (merged across the lanes).
// Pass 2: the scores again, p = exp(s - max) / sum, each lane accumulating 8 of O's columns and
// their sum of p |v| (the tolerance's scale). A row whose every score is masked gets O = 0 and
// LSE = -infinity, as attention/problem.hpp defines. O's reference lies where O does (the
// problem's strides); LSE's at [batch][heads][seqlen_q].
template <class E, class Chain>
__global__ void attention_reference_kernel(E const* q, E const* k, E const* v, attention::Problem p, float scale, Chain chain, double* want,
                                           float* mag, double* lse_want) {
  __shared__ float q_row[kReferenceWarps][attention::kMaxHeadDim];
  int const warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  int const sq = p.seqlen_q, sk = p.seqlen_k, group = p.heads / p.heads_kv;
  double const infinity = __longlong_as_double(0x7ff0000000000000ll);
  std::int64_t const rows = std::int64_t(p.batch) * p.heads * sq;
  for (std::int64_t row = std::int64_t(blockIdx.x) * kReferenceWarps + warp; row < rows; row += std::int64_t(gridDim.x) * kReferenceWarps) {
    int const i = int(row % sq), h = int(row / sq % p.heads), b = int(row / sq / p.heads), hk = h / group;
    E const* qi = q + p.q.offset(b, i, h);
    for (int d = lane; d < p.head_dim; d += 32) q_row[warp][d] = float(to_double(qi[d]));
    __syncwarp();
    auto const score = [&](int j) {
      E const* kj = k + p.k.offset(b, j, hk);
      double dot = 0;
      for (int d = 0; d < p.head_dim; ++d) dot += double(q_row[warp][d]) * to_double(kj[d]);
      return double(chain.score(float(dot * scale), attention::Coord{b, h, i, j, sq, sk}));
    };
    double top = -infinity, sum = 0;
    for (int j = lane; j < sk; j += 32) {
      double const s = score(j);
      if (s == -infinity) continue;
      if (s > top) {
        sum = sum * exp(top - s) + 1;
        top = s;
      } else {
        sum += exp(s - top);
      }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      double const other_top = __shfl_xor_sync(0xffffffffu, top, offset), other_sum = __shfl_xor_sync(0xffffffffu, sum, offset);
      double const both = fmax(top, other_top);
      sum = (top == -infinity ? 0.0 : sum * exp(top - both)) + (other_top == -infinity ? 0.0 : other_sum * exp(other_top - both));
      top = both;
    }
    double o[8] = {}, m[8] = {};
    if (top != -infinity)
      for (int j0 = 0; j0 < sk; j0 += 32) {
        double weight = 0;
        if (j0 + lane < sk) {
          double const s = score(j0 + lane);
          weight = s == -infinity ? 0.0 : exp(s - top) / sum;
        }
        for (int jj = 0; jj < 32 && j0 + jj < sk; ++jj) {
          double const w = __shfl_sync(0xffffffffu, weight, jj);
          if (w == 0) continue;  // (the same on every lane)
          E const* vj = v + p.v.offset(b, j0 + jj, hk);
          for (int t = 0; t < 8; ++t)
            if (lane + 32 * t < p.head_dim_v) {
              double const x = to_double(vj[lane + 32 * t]);
              o[t] += w * x;
              m[t] += w * fabs(x);
            }
        }
      }
    std::int64_t const oi = p.o.offset(b, i, h);
    for (int t = 0; t < 8; ++t)
      if (lane + 32 * t < p.head_dim_v) {
        want[oi + lane + 32 * t] = o[t];
        mag[oi + lane + 32 * t] = float(m[t]);
      }
    if (lane == 0) lse_want[row] = top == -infinity ? -infinity : top + log(sum);
    __syncwarp();
  }
}

// LSE against its reference: within 2^-10 (1 + |lse|) (a float softmax's sum and max); -infinity
// exactly where the reference has it. The largest |error| / tolerance as float bits, and the count
// off.
__global__ void lse_compare_kernel(float const* have, double const* want, std::size_t count, unsigned* worst, unsigned long long* bad) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
    double const w = want[i], h = have[i];
    double const r = isinf(w) ? (isinf(h) && h < 0 ? 0.0 : INFINITY) : fabs(h - w) / ldexp(1.0 + fabs(w), -10);
    float const ratio = r <= 3.0e38 ? float(r) : INFINITY;  // NaN and overflow count as infinitely wrong
    if (!(ratio <= 1.0f)) atomicAdd(bad, 1ull);
    atomicMax(worst, __float_as_uint(ratio));
  }
}

// f.template operator()<E>() for the problem's element type.
template <class F>
Status with_type(gemm::Dtype t, F&& f) {
  switch (t) {
    case gemm::Dtype::kBf16: return f.template operator()<bfloat16_t>();
    case gemm::Dtype::kF16: return f.template operator()<half_t>();
    default: return Status::invalid_argument(std::string("no attention reference for dtype ") + gemm::dtype_name(t));
  }
}

// f(chain) with the profiler kernels' chain of the mask (tuning::MaskChain).
template <class F>
Status with_chain(tuning::AttentionProblem const& p, F&& f) {
  using tuning::AttentionMask;
  switch (p.mask) {
    case AttentionMask::kCausal: return f(tuning::mask_chain<AttentionMask::kCausal>(p));
    case AttentionMask::kCausalTopLeft: return f(tuning::mask_chain<AttentionMask::kCausalTopLeft>(p));
    case AttentionMask::kWindow: return f(tuning::mask_chain<AttentionMask::kWindow>(p));
    default: return f(tuning::mask_chain<AttentionMask::kNone>(p));
  }
}

}  // namespace

struct AttentionRunner::Buffers {
  Allocation q, k, v, lse, lse_want;
};

AttentionRunner::AttentionRunner(TimingSettings settings) : DeviceRunner(settings), buffers_(new Buffers) {}

AttentionRunner::~AttentionRunner() { delete buffers_; }

Status AttentionRunner::prepare(AttentionSetup const& setup) {
  setup_ = setup;
  return with_type(setup.types.a, [&]<class E>() -> Status {
    AttentionShape const& a = setup.shape;
    Buffers& B = *buffers_;
    Common& C = *common_;
    std::size_t const b = std::size_t(a.batch);
    std::size_t const nq = b * a.seqlen_q * a.heads * a.head_dim, nk = b * a.seqlen_k * a.heads_kv * a.head_dim;
    std::size_t const nv = b * a.seqlen_k * a.heads_kv * a.head_dim_v, no = b * a.seqlen_q * a.heads * a.head_dim_v;
    std::size_t const nl = b * a.heads * a.seqlen_q;
    // O within 2^-7 (|o| + sum of p |v|): P is rounded to 16 bits on its way to the tensor cores
    // and O to E (test/device/attention's tolerance): 2 u_out = 2^-7, 8 u_acc = 2^-7.
    if (cudaError_t e = C.use_output<E>(no, {std::ldexp(1.0, -8), subnormal_spacing<E>(), std::ldexp(1.0, -10), 0.0}); e != cudaSuccess)
      return Status::device_error("allocating O and its reference: " + cuda_message(e));
    for (auto [x, bytes] : {std::pair{&B.q, nq * sizeof(E)}, std::pair{&B.k, nk * sizeof(E)}, std::pair{&B.v, nv * sizeof(E)},
                            std::pair{&B.lse, nl * sizeof(float)}, std::pair{&B.lse_want, nl * sizeof(double)}})
      if (cudaError_t e = x->reserve(std::max<std::size_t>(bytes, 16)); e != cudaSuccess)
        return Status::device_error("allocating Q, K, V and the LSE: " + cuda_message(e));
    TESSERA_RETURN_IF_ERROR(prepare_flush());
    fill(static_cast<E*>(B.q.ptr), nq, 21);
    fill(static_cast<E*>(B.k.ptr), nk, 22);
    fill(static_cast<E*>(B.v.ptr), nv, 23);

    tuning::AttentionProblem p;
    p.problem = a.problem();
    p.dtype = setup.types.a;
    p.mask = a.mask.kind;
    p.window_left = a.mask.left;
    p.window_right = a.mask.right;
    p.q = B.q.ptr;
    p.k = B.k.ptr;
    p.v = B.v.ptr;
    p.o = C.out.ptr;
    p.lse = static_cast<float*>(B.lse.ptr);
    problem_ = p;

    C.second = SecondOutput{"LSE", nl, [&B, nl] { cudaMemset(B.lse.ptr, 0xFF, nl * sizeof(float)); },
                            [&B, &C, nl](unsigned& worst, unsigned long long& bad) {
                              return count_off(
                                  C.check,
                                  [&](unsigned* w, unsigned long long* n) {
                                    lse_compare_kernel<<<unsigned(std::min<std::size_t>((nl + 255) / 256, 8192)), 256>>>(
                                        static_cast<float const*>(B.lse.ptr), static_cast<double const*>(B.lse_want.ptr), nl, w, n);
                                  },
                                  worst, bad);
                            }};

    std::int64_t const rows = std::int64_t(nl);
    unsigned const blocks = unsigned(std::clamp<std::int64_t>((rows + kReferenceWarps - 1) / kReferenceWarps, 1, 4096));
    TESSERA_RETURN_IF_ERROR(with_chain(p, [&](auto chain) {
      attention_reference_kernel<E><<<blocks, 32 * kReferenceWarps>>>(
          static_cast<E const*>(p.q), static_cast<E const*>(p.k), static_cast<E const*>(p.v), p.problem, p.problem.softmax_scale(), chain,
          static_cast<double*>(C.want.ptr), static_cast<float*>(C.mag.ptr), static_cast<double*>(B.lse_want.ptr));
      return Status::success();
    }));
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return Status::device_error("the reference failed: " + cuda_message(e));
    return Status::success();
  });
}

Result AttentionRunner::blank_result(std::string kernel) const {
  AttentionShape const& a = setup_.shape;
  Result r;
  r.kernel = std::move(kernel);
  r.operation = "attention";
  r.dtype = setup_.types.name;
  r.layout = attention_layout_name(a.layout);
  r.epilogue = "none";
  r.problem = attention_problem_text(a);
  r.m = a.seqlen_q;
  r.n = a.seqlen_k;
  r.k = a.head_dim;
  r.batch = a.batch * a.heads;
  return r;
}

Result AttentionRunner::run(tuning::AttentionKernel const& kernel) {
  Result r = not_run(blank_result(kernel.name));
  if (r.outcome == Outcome::kError) return r;
  if (Status s = kernel.can_implement(problem_); !s) return fail(r, Outcome::kSkipped, s.message());
  return verify_and_time(std::move(r), [&](bool) { return kernel.run(problem_); });
}

}  // namespace tessera::profiler
