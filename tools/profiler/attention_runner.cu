#include "attention_runner.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "device_common.cuh"
#include "tessera/attention/coord.hpp"
#include "tessera/core/numeric_types.hpp"

namespace tessera::profiler {

namespace {

constexpr int kReferenceWarps = 4;  // a warp per query row, four to a block

// Where a reference row's sequences are: its batch entry, its query's position, the entry's
// lengths and first tokens (0 with fixed lengths, whose batch stride places the entries).
struct RowSequence {
  int b, h, i, sq, sk, q0, k0;
};

// The lengths the reference sees: fixed, or a packed batch's cu_seqlens (device memory).
struct ReferenceLengths {
  int const* cu_q = nullptr;
  int const* cu_k = nullptr;
  std::int64_t total_q = 0;

  // Row `row` of the LSE's order: [batch][heads][seqlen_q], or [heads][total_q] for a packed batch
  // (whose entry is the last b with cu_q[b] <= token: empty entries share their offset with the
  // next one).
  __device__ RowSequence at(std::int64_t row, attention::Problem const& p) const {
    if (cu_q == nullptr) {
      int const sq = p.seqlen_q;
      return {int(row / sq / p.heads), int(row / sq % p.heads), int(row % sq), sq, p.seqlen_k, 0, 0};
    }
    int const h = int(row / total_q), token = int(row % total_q);
    int lo = 0, hi = p.batch - 1;
    while (lo < hi) {
      int const mid = (lo + hi + 1) / 2;
      if (cu_q[mid] <= token) lo = mid;
      else hi = mid - 1;
    }
    return {lo, h, token - cu_q[lo], cu_q[lo + 1] - cu_q[lo], cu_k[lo + 1] - cu_k[lo], cu_q[lo], cu_k[lo]};
  }
  __host__ __device__ std::int64_t rows(attention::Problem const& p) const {
    return cu_q == nullptr ? std::int64_t(p.batch) * p.heads * p.seqlen_q : std::int64_t(p.heads) * total_q;
  }
};

// The values the kernels read: the stored ones times their tensor's scale (1 but for fp8).
struct ReferenceScales {
  float q = 1.0f, k = 1.0f, v = 1.0f;
};

// The reference: a warp per query (batch entry, head, position). Pass 1: each lane takes every
// 32nd key, its score q . k in double, scaled and rounded to float as the kernels' chain sees it,
// through the chain; the row's max and sum of exponentials in double (merged across the lanes).
// Pass 2: the scores again, p = exp(s - max) / sum, each lane accumulating 8 of O's columns and
// their sum of p |v| (the tolerance's scale). A row whose every score is masked (or that has no
// key) gets O = 0 and LSE = -infinity, as attention/problem.hpp defines. O's reference lies where
// O does (the problem's strides, a packed batch's token rows); LSE's in the order of
// ReferenceLengths::at.
template <class E, class Chain>
__global__ void attention_reference_kernel(E const* q, E const* k, E const* v, attention::Problem p, ReferenceLengths lengths,
                                           ReferenceScales scales, float scale, Chain chain, double* want, float* mag, double* lse_want) {
  __shared__ float q_row[kReferenceWarps][attention::kMaxHeadDim];
  int const warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  int const group = p.heads / p.heads_kv;
  double const infinity = __longlong_as_double(0x7ff0000000000000ll);
  std::int64_t const rows = lengths.rows(p);
  for (std::int64_t row = std::int64_t(blockIdx.x) * kReferenceWarps + warp; row < rows; row += std::int64_t(gridDim.x) * kReferenceWarps) {
    RowSequence const r = lengths.at(row, p);
    int const b = r.b, h = r.h, i = r.i, sq = r.sq, sk = r.sk, hk = h / group;
    E const* qi = q + p.q.offset(b, r.q0 + i, h);
    for (int d = lane; d < p.head_dim; d += 32) q_row[warp][d] = float(to_double(qi[d]) * scales.q);
    __syncwarp();
    auto const score = [&](int j) {
      E const* kj = k + p.k.offset(b, r.k0 + j, hk);
      double dot = 0;
      for (int d = 0; d < p.head_dim; ++d) dot += double(q_row[warp][d]) * (to_double(kj[d]) * scales.k);
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
          E const* vj = v + p.v.offset(b, r.k0 + j0 + jj, hk);
          for (int t = 0; t < 8; ++t)
            if (lane + 32 * t < p.head_dim_v) {
              double const x = to_double(vj[lane + 32 * t]) * scales.v;
              o[t] += w * x;
              m[t] += w * fabs(x);
            }
        }
      }
    std::int64_t const oi = p.o.offset(b, r.q0 + i, h);
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

// f.template operator()<E, O>() for the problem's element types (of Q, K and V; of O).
template <class F>
Status with_type(gemm::Dtype t, F&& f) {
  switch (t) {
    case gemm::Dtype::kBf16: return f.template operator()<bfloat16_t, bfloat16_t>();
    case gemm::Dtype::kF16: return f.template operator()<half_t, half_t>();
    case gemm::Dtype::kE4m3: return f.template operator()<float8_e4m3_t, bfloat16_t>();
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
  Allocation q, k, v, lse, lse_want, cu_q, cu_k;
};

AttentionRunner::AttentionRunner(TimingSettings settings) : DeviceRunner(settings), buffers_(new Buffers) {}

AttentionRunner::~AttentionRunner() { delete buffers_; }

Status AttentionRunner::prepare(AttentionSetup const& setup) {
  setup_ = setup;
  return with_type(setup.types.a, [&]<class E, class O>() -> Status {
    AttentionShape const& a = setup.shape;
    Buffers& B = *buffers_;
    Common& C = *common_;
    constexpr bool fp8 = std::is_same_v<E, float8_e4m3_t>;
    std::size_t const rows_q = std::size_t(a.total_q()), rows_k = std::size_t(a.total_k());
    std::size_t const nq = rows_q * a.heads * a.head_dim, nk = rows_k * a.heads_kv * a.head_dim;
    std::size_t const nv = rows_k * a.heads_kv * a.head_dim_v, no = rows_q * a.heads * a.head_dim_v;
    std::size_t const nl = rows_q * a.heads;
    // O within 2^-7 (|o| + sum of p |v|): P is rounded to 16 bits on its way to the tensor cores
    // and O to E (test/device/attention's tolerance): 2 u_out = 2^-7, 8 u_acc = 2^-7. fp8: 2^-4,
    // the device test's (P enters P V in e4m3, 3 mantissa bits).
    Tolerance const tolerance = fp8 ? Tolerance{std::ldexp(1.0, -5), subnormal_spacing<O>(), std::ldexp(1.0, -7), 0.0}
                                    : Tolerance{std::ldexp(1.0, -8), subnormal_spacing<O>(), std::ldexp(1.0, -10), 0.0};
    if (cudaError_t e = C.use_output<O>(no, tolerance); e != cudaSuccess)
      return Status::device_error("allocating O and its reference: " + cuda_message(e));
    std::size_t const nc = a.variable() ? a.seqlens_q.size() + 1 : 0;
    for (auto [x, bytes] : {std::pair{&B.q, nq * sizeof(E)}, std::pair{&B.k, nk * sizeof(E)}, std::pair{&B.v, nv * sizeof(E)},
                            std::pair{&B.lse, nl * sizeof(float)}, std::pair{&B.lse_want, nl * sizeof(double)},
                            std::pair{&B.cu_q, nc * sizeof(int)}, std::pair{&B.cu_k, nc * sizeof(int)}})
      if (cudaError_t e = x->reserve(std::max<std::size_t>(bytes, 16)); e != cudaSuccess)
        return Status::device_error("allocating Q, K, V, the LSE and the sequences' offsets: " + cuda_message(e));
    TESSERA_RETURN_IF_ERROR(prepare_flush());
    fill(static_cast<E*>(B.q.ptr), nq, 21);
    fill(static_cast<E*>(B.k.ptr), nk, 22);
    fill(static_cast<E*>(B.v.ptr), nv, 23);

    // A packed batch: its offsets (cu_seqlens) on the device.
    ReferenceLengths lengths;
    if (a.variable()) {
      std::vector<int> cu_q{0}, cu_k{0};
      for (std::size_t i = 0; i < a.seqlens_q.size(); ++i)
        cu_q.push_back(cu_q.back() + a.seqlens_q[i]), cu_k.push_back(cu_k.back() + a.seqlens_k[i]);
      cudaMemcpy(B.cu_q.ptr, cu_q.data(), nc * sizeof(int), cudaMemcpyHostToDevice);
      if (cudaError_t e = cudaMemcpy(B.cu_k.ptr, cu_k.data(), nc * sizeof(int), cudaMemcpyHostToDevice); e != cudaSuccess)
        return Status::device_error("copying the sequences' offsets: " + cuda_message(e));
      lengths = {static_cast<int const*>(B.cu_q.ptr), static_cast<int const*>(B.cu_k.ptr), a.total_q()};
    }

    tuning::AttentionProblem p;
    p.problem = a.problem(lengths.cu_q, lengths.cu_k);
    p.dtype = setup.types.a;
    p.mask = a.mask.kind;
    p.window_left = a.mask.left;
    p.window_right = a.mask.right;
    p.q = B.q.ptr;
    p.k = B.k.ptr;
    p.v = B.v.ptr;
    p.o = C.out.ptr;
    p.lse = static_cast<float*>(B.lse.ptr);
    if constexpr (fp8) p.scale_q = kFp8ScaleQ, p.scale_k = kFp8ScaleK, p.scale_v = kFp8ScaleV;
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
    ReferenceScales const scales{p.scale_q, p.scale_k, p.scale_v};
    TESSERA_RETURN_IF_ERROR(with_chain(p, [&](auto chain) {
      if (rows > 0)
        attention_reference_kernel<E><<<blocks, 32 * kReferenceWarps>>>(
            static_cast<E const*>(p.q), static_cast<E const*>(p.k), static_cast<E const*>(p.v), p.problem, lengths, scales,
            p.problem.softmax_scale(), chain, static_cast<double*>(C.want.ptr), static_cast<float*>(C.mag.ptr),
            static_cast<double*>(B.lse_want.ptr));
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
