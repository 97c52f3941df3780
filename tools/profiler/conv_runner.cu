#include "conv_runner.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "device_common.cuh"
#include "tessera/conv/config_check.hpp"
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/epilogue/convert.hpp"

namespace tessera::profiler {

namespace {

// The reference, a direct convolution: a thread per element of the written tensor (Fprop: Y,
// N Z P Q K; Dgrad: dX, N D H W C; Wgrad: dW, K T R S C/g), its products and their magnitudes
// summed in double over the terms that lie in the image, rounded to E as the kernels round.
template <class E>
__global__ void conv_reference_kernel(E const* x, E const* w, E const* y, conv::Problem p, conv::Direction dir, std::int64_t count,
                                      double* want, float* mag) {
  int const cg = p.c_per_group(), kg = p.k_per_group(), z_ext = p.z(), p_ext = p.p(), q_ext = p.q();
  auto const x_at = [&](int n, int d, int h, int ww, int c) { return x[(((std::int64_t(n) * p.d + d) * p.h + h) * p.w + ww) * p.c + c]; };
  auto const y_at = [&](int n, int z, int pp, int q, int k) { return y[(((std::int64_t(n) * z_ext + z) * p_ext + pp) * q_ext + q) * p.k + k]; };
  auto const w_at = [&](int k, int t, int r, int s, int c) { return w[(((std::int64_t(k) * p.t + t) * p.r + r) * p.s + s) * cg + c]; };
  auto const inside = [&](int d, int h, int ww) { return d >= 0 && d < p.d && h >= 0 && h < p.h && ww >= 0 && ww < p.w; };
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count; i += std::int64_t(gridDim.x) * blockDim.x) {
    double acc = 0, magnitude = 0;
    auto const add = [&](double a, double b) {
      acc += a * b;
      magnitude += fabs(a * b);
    };
    std::int64_t rest = i;
    auto const next = [&](int extent) {
      int const v = int(rest % extent);
      rest /= extent;
      return v;
    };
    if (dir == conv::Direction::kFprop) {  // Y[n, z, p, q, k] = sum over t, r, s, c of X W
      int const k = next(p.k), q = next(q_ext), pp = next(p_ext), z = next(z_ext), n = int(rest), g = k / kg;
      for (int t = 0; t < p.t; ++t)
        for (int r = 0; r < p.r; ++r)
          for (int s = 0; s < p.s; ++s) {
            int const d = conv::input_coord(p, 0, z, t), h = conv::input_coord(p, 1, pp, r), ww = conv::input_coord(p, 2, q, s);
            if (!inside(d, h, ww)) continue;
            for (int c = 0; c < cg; ++c) add(to_double(x_at(n, d, h, ww, g * cg + c)), to_double(w_at(k, t, r, s, c)));
          }
    } else if (dir == conv::Direction::kDgrad) {  // dX[n, d, h, w, c] = sum over k, t, r, s of dY W
      int const c = next(p.c), ww = next(p.w), h = next(p.h), d = next(p.d), n = int(rest), g = c / cg;
      for (int t = 0; t < p.t; ++t)
        for (int r = 0; r < p.r; ++r)
          for (int s = 0; s < p.s; ++s) {
            int const z = conv::output_coord(p, 0, d, t), pp = conv::output_coord(p, 1, h, r), q = conv::output_coord(p, 2, ww, s);
            if (z < 0 || pp < 0 || q < 0) continue;
            for (int k = g * kg; k < (g + 1) * kg; ++k) add(to_double(y_at(n, z, pp, q, k)), to_double(w_at(k, t, r, s, c - g * cg)));
          }
    } else {  // dW[k, t, r, s, c] = sum over n, z, p, q of dY X
      int const c = next(cg), s = next(p.s), r = next(p.r), t = next(p.t), k = int(rest), g = k / kg;
      for (int n = 0; n < p.n; ++n)
        for (int z = 0; z < z_ext; ++z)
          for (int pp = 0; pp < p_ext; ++pp)
            for (int q = 0; q < q_ext; ++q) {
              int const d = conv::input_coord(p, 0, z, t), h = conv::input_coord(p, 1, pp, r), ww = conv::input_coord(p, 2, q, s);
              if (inside(d, h, ww)) add(to_double(y_at(n, z, pp, q, k)), to_double(x_at(n, d, h, ww, g * cg + c)));
            }
    }
    want[i] = to_double(epilogue::convert_output<E>(float(acc)));
    mag[i] = float(magnitude);
  }
}

// f.template operator()<E>() for the convolution's element type.
template <class F>
Status with_type(gemm::Dtype t, F&& f) {
  switch (t) {
    case gemm::Dtype::kBf16: return f.template operator()<bfloat16_t>();
    case gemm::Dtype::kF16: return f.template operator()<half_t>();
    default: return Status::invalid_argument(std::string("no convolution reference for dtype ") + gemm::dtype_name(t));
  }
}

}  // namespace

struct ConvRunner::Buffers {
  Allocation read0, read1;  // the two tensors the direction reads
};

ConvRunner::ConvRunner(TimingSettings settings) : DeviceRunner(settings), buffers_(new Buffers) {}

ConvRunner::~ConvRunner() { delete buffers_; }

Status ConvRunner::prepare(ConvSetup const& setup) {
  setup_ = setup;
  return with_type(setup.types.a, [&]<class E>() -> Status {
    conv::Problem const& p = setup.problem;
    conv::Direction const dir = setup.direction;
    Buffers& B = *buffers_;
    Common& C = *common_;
    std::size_t const xs = std::size_t(p.input_elements()), ws = std::size_t(p.filter_elements()), ys = std::size_t(p.output_elements());
    std::size_t const out = dir == conv::Direction::kFprop ? ys : dir == conv::Direction::kDgrad ? xs : ws;
    // The GEMM's tolerance for 16-bit types with float accumulation is 2^-22 of the magnitudes; a
    // convolution's K (Wgrad's N Z P Q) is longer and split into partial sums added in float: 2^-20.
    if (cudaError_t e = C.use_output<E>(out, {unit_roundoff<E>(), subnormal_spacing<E>(), std::ldexp(1.0, -20), 0.0}); e != cudaSuccess)
      return Status::device_error("allocating the output and its reference: " + cuda_message(e));
    // The tensors read: Fprop x and w, Dgrad y and w, Wgrad y and x.
    std::size_t const first = dir == conv::Direction::kFprop ? xs : ys, second = dir == conv::Direction::kWgrad ? xs : ws;
    for (auto [a, bytes] : {std::pair{&B.read0, first * sizeof(E)}, std::pair{&B.read1, second * sizeof(E)}})
      if (cudaError_t e = a->reserve(std::max<std::size_t>(bytes, 16)); e != cudaSuccess)
        return Status::device_error("allocating the tensors: " + cuda_message(e));
    TESSERA_RETURN_IF_ERROR(prepare_flush());
    fill(static_cast<E*>(B.read0.ptr), first, 11);
    fill(static_cast<E*>(B.read1.ptr), second, 12);

    tuning::ConvProblem q;
    q.problem = p;
    q.direction = dir;
    q.dtype = setup.types.a;
    q.x = dir == conv::Direction::kFprop ? B.read0.ptr : dir == conv::Direction::kDgrad ? C.out.ptr : B.read1.ptr;
    q.w = dir == conv::Direction::kWgrad ? C.out.ptr : B.read1.ptr;
    q.y = dir == conv::Direction::kFprop ? C.out.ptr : B.read0.ptr;
    q.split_k = 0;
    problem_ = q;

    unsigned const blocks = unsigned(std::min<std::size_t>((out + 255) / 256, 65535));
    conv_reference_kernel<E><<<std::max(blocks, 1u), 256>>>(static_cast<E const*>(q.x), static_cast<E const*>(q.w), static_cast<E const*>(q.y),
                                                           p, dir, std::int64_t(out), static_cast<double*>(C.want.ptr),
                                                           static_cast<float*>(C.mag.ptr));
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return Status::device_error("the reference failed: " + cuda_message(e));
    return Status::success();
  });
}

Result ConvRunner::blank_result(std::string kernel) const {
  Result r;
  r.kernel = std::move(kernel);
  r.operation = "conv";
  r.dtype = setup_.types.name;
  r.epilogue = "none";
  r.direction = conv::direction_name(setup_.direction);
  r.problem = conv_problem_text(setup_.problem);
  conv::GemmShape const g = conv::gemm_shape(setup_.problem, setup_.direction);
  r.m = int(g.m);
  r.n = int(g.n);
  r.k = int(g.k);
  r.batch = setup_.problem.groups;
  return r;
}

Result ConvRunner::run(tuning::ConvKernel const& kernel) {
  Result r = not_run(blank_result(kernel.name));
  if (r.outcome == Outcome::kError) return r;
  if (Status s = kernel.can_implement(problem_); !s) return fail(r, Outcome::kSkipped, s.message());
  std::size_t const bytes = kernel.workspace_size(problem_);
  Allocation& workspace = common_->workspace;
  if (cudaError_t e = workspace.reserve(std::max<std::size_t>(bytes, 16)); e != cudaSuccess)
    return fail(r, Outcome::kError, "allocating " + std::to_string(bytes) + " bytes of workspace: " + cuda_message(e));
  return verify_and_time(std::move(r), [&](bool) { return kernel.run(problem_, workspace.ptr); });
}

}  // namespace tessera::profiler
