// GEMM checks for problems too large for the host reference: operands filled on the device with
// random normal values (full mantissas; integers for int8), a reference kernel that sums the exact
// products in double and applies the same epilogue chain and scales, and the comparison on the
// device with the host harness's per-element bound (gemm_check.hpp). Each check poisons D before
// every run, runs the GEMM `runs` times and counts (1) outputs of the first run off the
// reference, (2) outputs of the later runs that differ bit for bit from the first, (3) elements
// outside D's extents that lost their poison. The stress suites (large grids, each run several times) and the fuzz (fuzz.hpp) use it.
//
//   DeviceCase cs{.m = 16384, .n = 30000, .k = 64};
//   DeviceResult const r = DeviceCheck<Cfg>::run(cs, 3);
//   INFO(r.report()); REQUIRE(r.ok());
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "gemm_check.hpp"

namespace tessera::test {

// A problem in explicit terms: leading dimensions (0: tight) and batch strides (0: tight, after
// the leading dimension) in elements; the GEMM's options.
struct DeviceCase {
  int m = 1, n = 1, k = 1, batch = 1;
  std::int64_t lda = 0, ldb = 0, ldd = 0;
  gemm::StorageOrder d_order = gemm::StorageOrder::kRowMajor;
  int split_k = 1;
  bool swap_ab = false;
  int raster_group = 0;
  gemm::L2Hint l2_hint_a = gemm::L2Hint::kAuto, l2_hint_b = gemm::L2Hint::kAuto;
  int misalign = 0;  // A's and B's pointers this many elements past a 256-byte aligned address
  Scales scales;     // sm90: per-tensor scales and amax

  std::string describe() const {
    std::ostringstream s;
    s << "M=" << m << " N=" << n << " K=" << k << " batch=" << batch << " lda=" << lda << " ldb=" << ldb << " ldd=" << ldd
      << " D " << (d_order == gemm::StorageOrder::kRowMajor ? "row" : "column") << "-major split_k=" << split_k
      << (swap_ab ? " swap_ab" : "") << " raster_group=" << raster_group << " l2_hints=" << int(l2_hint_a) << ","
      << int(l2_hint_b) << " misalign=" << misalign;
    if (scales.set) s << " scales=" << scales.a << "," << scales.b << "," << scales.d << (scales.amax ? " amax" : "");
    return s.str();
  }
};

struct DeviceResult {
  std::string problem;
  std::string refused;          // the Status's message where the GEMM refused the problem
  std::uint64_t wrong = 0;      // outputs of the first run off the reference
  std::uint64_t differ = 0;     // outputs of a later run that differ bit for bit from the first (the most in any)
  std::uint64_t clobbered = 0;  // elements outside D that lost their poison (the most in any run)
  double worst = 0;             // the largest |error| / tolerance
  std::int64_t first = -1;      // the first wrong output: (batch, row, col), and its values
  int first_b = 0, first_row = 0, first_col = 0;
  double first_have = 0, first_ab = 0;  // D there, and A * B there (before the epilogue and the scales)
  bool amax_checked = false;
  double amax_have = 0, amax_want = 0;

  double amax_tol = 0;
  bool amax_ok() const { return !amax_checked || std::fabs(amax_have - amax_want) <= amax_tol; }
  bool ok() const { return refused.empty() && wrong == 0 && differ == 0 && clobbered == 0 && amax_ok(); }
  std::string report() const {
    std::ostringstream s;
    s << problem << ": ";
    if (!refused.empty()) return s.str() + "refused: " + refused;
    s << wrong << " wrong, " << differ << " differ between runs, " << clobbered << " written outside D; worst "
      << worst << " x tolerance";
    if (first >= 0)
      s << "; first wrong: batch " << first_b << " row " << first_row << " column " << first_col << ": " << first_have << " (A * B there: "
        << first_ab << ")";
    if (amax_checked) s << "; amax " << amax_have << " (reference " << amax_want << ")";
    return s.str();
  }
};

namespace device_verify {

template <class T>
__host__ __device__ double to_double(T x) {
  if constexpr (std::is_arithmetic_v<T>) return double(x);
  else return double(x.to_float());
}

__host__ __device__ inline std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Element i of the stream `seed`: a standard normal value rounded to T (Box-Muller on two 24-bit
// uniforms), or for integer T a non-zero integer in -8..8 (as the host harness draws them). With
// `uniform`, a float in (-1, 1) instead: the epilogue's data (bias, scale, C), which keeps the
// chain's stages within the Lipschitz constant the tolerance assumes (gemm_check.hpp).
template <class T>
__host__ __device__ T random_element(std::uint64_t seed, std::uint64_t i, bool uniform = false) {
  std::uint64_t const h = mix(mix(seed) ^ i);
  if constexpr (std::is_integral_v<T>) {
    int const v = int(h % 16) - 8;
    return T(v >= 0 ? v + 1 : v);
  } else {
    float const u1 = (float(h & 0xFFFFFF) + 0.5f) * 0x1p-24f, u2 = float((h >> 24) & 0xFFFFFF) * 0x1p-24f;
    float const x = uniform ? 2.0f * u1 - 1.0f : sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
    if constexpr (std::is_same_v<T, float>) return x;
    else return T(x);
  }
}

template <class T>
__global__ void fill_kernel(T* p, std::size_t count, std::uint64_t seed, bool uniform) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = random_element<T>(seed, i, uniform);
}

template <class T>
void fill(T* p, std::size_t count, std::uint64_t seed, bool uniform = false) {
  if (count == 0) return;
  fill_kernel<<<unsigned(std::min<std::size_t>((count + 255) / 256, 8192)), 256>>>(p, count, seed, uniform);
}

template <class EA, class EB, class ED>
struct RefProblem {
  EA const* a;
  EB const* b;
  ED const* d;
  int m, n, k, batch;
  std::int64_t lda, ldb, ldd, sa, sb, sd;
  bool a_k_major, b_k_major, d_row_major;
  double ab, scale_d;
  // The bound on |D - reference|: 2 u_out |want| + subnormal + |scale_d| (4 u_acc g sum|a b| ab + 1e-6)
  // + extra, g = max(1, sqrt(K / 1024)) (see DeviceCheck::run).
  double u_out, subnormal, u_acc, extra;
};

struct RefTally {
  unsigned long long wrong;
  unsigned long long first;  // the smallest linear index (batch, row, col) of a wrong output
  unsigned worst_bits;       // the largest |error| / tolerance, as float bits
  unsigned amax_bits;        // max |epilogue(...)| before scale_d, as float bits
  unsigned mag_bits;         // max sum |a b| over D, as float bits
};

// 16 x 16 outputs per block: K in steps of 16 through shared memory (each operand read along its
// contiguous dimension), the products and their magnitudes summed in double.
template <class EA, class EB, class ED, class Epi>
__global__ void reference_kernel(RefProblem<EA, EB, ED> r, Epi epi, RefTally* tally) {
  __shared__ double sa[16][17], sb[16][17];  // sa[row][k], sb[k][col]
  int const tx = threadIdx.x, ty = threadIdx.y, bt = blockIdx.z;
  std::int64_t const i0 = std::int64_t(blockIdx.y) * 16, j0 = std::int64_t(blockIdx.x) * 16;
  EA const* const a = r.a + bt * r.sa;
  EB const* const b = r.b + bt * r.sb;
  double acc = 0, mag = 0;
  for (int k0 = 0; k0 < r.k; k0 += 16) {
    if (r.a_k_major) {  // A(i, k) at i * lda + k: k along the threads
      std::int64_t const i = i0 + ty, kk = k0 + tx;
      sa[ty][tx] = i < r.m && kk < r.k ? to_double(a[i * r.lda + kk]) : 0.0;
    } else {  // at k * lda + i: i along the threads
      std::int64_t const i = i0 + tx, kk = k0 + ty;
      sa[tx][ty] = i < r.m && kk < r.k ? to_double(a[kk * r.lda + i]) : 0.0;
    }
    if (r.b_k_major) {  // B(k, j) at j * ldb + k
      std::int64_t const j = j0 + ty, kk = k0 + tx;
      sb[tx][ty] = j < r.n && kk < r.k ? to_double(b[j * r.ldb + kk]) : 0.0;
    } else {  // at k * ldb + j
      std::int64_t const j = j0 + tx, kk = k0 + ty;
      sb[ty][tx] = j < r.n && kk < r.k ? to_double(b[kk * r.ldb + j]) : 0.0;
    }
    __syncthreads();
    for (int kk = 0; kk < 16; ++kk) {
      double const p = sa[ty][kk] * sb[kk][tx];
      acc += p;
      mag += fabs(p);
    }
    __syncthreads();
  }
  std::int64_t const i = i0 + ty, j = j0 + tx;
  if (i >= r.m || j >= r.n) return;
  float const y = epi(float(r.ab * acc), epilogue::Coord{int(i), int(j), bt});
  atomicMax(&tally->amax_bits, __float_as_uint(fabsf(y)));
  double const want = to_double(epilogue::convert_output<ED>(float(r.scale_d * y)));
  double const have = to_double(r.d[bt * r.sd + (r.d_row_major ? i * r.ldd + j : j * r.ldd + i)]);
  double const tol = 2 * r.u_out * fabs(want) + r.subnormal + fabs(r.scale_d) * (4 * r.u_acc * mag * r.ab + 1e-6) + r.extra;
  atomicMax(&tally->mag_bits, __float_as_uint(float(mag)));
  double const ratio = fabs(have - want) / tol;
  float const f = ratio <= 3.0e38 ? float(ratio) : INFINITY;  // NaN and overflow count as infinitely wrong
  if (!(f <= 1.0f)) {
    atomicAdd(&tally->wrong, 1ull);
    atomicMin(&tally->first, (unsigned long long)((std::int64_t(bt) * r.m + i) * r.n + j));
  }
  atomicMax(&tally->worst_bits, __float_as_uint(f));
}

// Elements of `now` that differ bit for bit from `then` (count of them), and elements of D's
// allocation outside its extents whose bytes are not the poison's (0xA5).
template <class T>
__global__ void differ_kernel(T const* now, T const* then, std::size_t count, unsigned long long* out) {
  using Bits = std::conditional_t<sizeof(T) == 1, std::uint8_t, std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>>;
  static_assert(sizeof(T) == sizeof(Bits), "differ_kernel: elements of 1, 2 or 4 bytes");
  unsigned long long c = 0;
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count; e += std::size_t(gridDim.x) * blockDim.x)
    c += reinterpret_cast<Bits const*>(now)[e] != reinterpret_cast<Bits const*>(then)[e];
  if (c) atomicAdd(out, c);
}

template <class T>
__global__ void clobber_kernel(T const* d, std::size_t count, std::int64_t ld, std::int64_t batch_stride, std::int64_t outer,
                               std::int64_t inner, int batch, unsigned long long* out) {
  unsigned long long c = 0;
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count; e += std::size_t(gridDim.x) * blockDim.x) {
    std::int64_t const b = std::int64_t(e) / batch_stride, rem = std::int64_t(e) % batch_stride;
    bool const inside = b < batch && rem / ld < outer && rem % ld < inner;
    if (inside) continue;
    unsigned char const* bytes = reinterpret_cast<unsigned char const*>(d + e);
    for (int x = 0; x < int(sizeof(T)); ++x) c += bytes[x] != 0xA5;
  }
  if (c) atomicAdd(out, c);
}

// Device allocations that grow and are kept for the process: the checks reuse them problem after
// problem (the fuzz runs a thousand), so cudaMalloc runs only when a problem is the largest yet.
inline void* scratch(int slot, std::size_t bytes) {
  struct Block {
    void* p = nullptr;
    std::size_t bytes = 0;
  };
  static Block blocks[16];
  Block& b = blocks[slot];
  if (bytes > b.bytes) {
    cudaFree(b.p);
    b = {};
    cudaError_t const e = cudaMalloc(&b.p, bytes);
    INFO("cudaMalloc of " << bytes << " bytes: " << cudaGetErrorString(e));
    REQUIRE(e == cudaSuccess);
    b.bytes = bytes;
  }
  return b.p;
}
enum Slot { kA, kB, kD, kFirstD, kWorkspace, kTally, kScales, kEpilogue0 };  // kEpilogue0 + i: the epilogue's data

inline unsigned grid_for(std::size_t count) { return unsigned(std::min<std::size_t>((count + 255) / 256, 8192)); }

}  // namespace device_verify

template <class Cfg>
struct DeviceCheck {
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  using ED = typename Cfg::ElementD;
  using Epi = typename Cfg::Epilogue;

  // The case with its leading dimensions filled in where 0: tight, rounded up to 16 bytes for A
  // and B of the sm90 kernel (TMA reads them).
  static DeviceCase resolved(DeviceCase cs) {
    bool const row = cs.d_order == gemm::StorageOrder::kRowMajor;
    auto const tight = [](std::int64_t extent, int bytes) {
      std::int64_t const e = Cfg::warp_specialized ? 16 / bytes : 1;
      return (extent + e - 1) / e * e;
    };
    if (cs.lda == 0) cs.lda = tight(Cfg::a_k_major ? cs.k : cs.m, int(sizeof(EA)));
    if (cs.ldb == 0) cs.ldb = tight(Cfg::b_k_major ? cs.k : cs.n, int(sizeof(EB)));
    if (cs.ldd == 0) cs.ldd = row ? cs.n : cs.m;
    return cs;
  }

  // Runs `cs` `runs` times with epilogue `epi` (its device pointers filled by the caller), operands
  // drawn from `seed`; `extra_tol` as in GemmCheck::run. `Rounding`: a type the chain rounds to
  // on its way (epilogue::ConvertTo<half>), whose rounding the bound then covers as D's: the
  // device's value and the reference's may land on neighbouring values of it.
  template <class Rounding = ED>
  static DeviceResult run(DeviceCase const& given, int runs = 2, Epi const& epi = Epi{}, std::uint64_t seed = 1,
                          double extra_tol = 0) {
    namespace dv = device_verify;
    require_gpu();
    DeviceCase const cs = resolved(given);
    DeviceResult res;
    res.problem = cs.describe();
    bool const row = cs.d_order == gemm::StorageOrder::kRowMajor;
    std::int64_t const a_outer = Cfg::a_k_major ? cs.m : cs.k, b_outer = Cfg::b_k_major ? cs.n : cs.k, d_outer = row ? cs.m : cs.n;
    // Batch strides: the matrix, padded by a few elements (16-byte multiples for TMA).
    std::int64_t const sa = (cs.lda * a_outer + 15) / 16 * 16 + 16, sb = (cs.ldb * b_outer + 15) / 16 * 16 + 16;
    std::int64_t const sd = cs.batch > 1 ? (cs.ldd * d_outer + 15) / 16 * 16 + 16 : cs.ldd * d_outer;
    std::size_t const na = std::size_t(sa) * cs.batch + cs.misalign, nb = std::size_t(sb) * cs.batch + cs.misalign;
    std::size_t const nd = std::size_t(sd) * cs.batch;
    auto* const a = static_cast<EA*>(dv::scratch(dv::kA, na * sizeof(EA)));
    auto* const b = static_cast<EB*>(dv::scratch(dv::kB, nb * sizeof(EB)));
    auto* const d = static_cast<ED*>(dv::scratch(dv::kD, nd * sizeof(ED)));
    auto* const first_d = static_cast<ED*>(dv::scratch(dv::kFirstD, runs > 1 ? nd * sizeof(ED) : 1));
    auto* const tally = static_cast<dv::RefTally*>(dv::scratch(dv::kTally, sizeof(dv::RefTally) + 2 * sizeof(unsigned long long)));
    auto* const counts = reinterpret_cast<unsigned long long*>(tally + 1);  // differ, clobbered
    auto* const scales = static_cast<float*>(dv::scratch(dv::kScales, 4 * sizeof(float)));
    dv::fill(a, na, seed * 2);
    dv::fill(b, nb, seed * 2 + 1);

    gemm::Arguments<Cfg> args;
    args.m = cs.m;
    args.n = cs.n;
    args.k = cs.k;
    args.a = a + cs.misalign;
    args.lda = cs.lda;
    args.b = b + cs.misalign;
    args.ldb = cs.ldb;
    args.d = d;
    args.ldd = cs.ldd;
    args.d_order = cs.d_order;
    args.batch_count = cs.batch;
    args.batch_stride_a = cs.batch > 1 ? sa : 0;
    args.batch_stride_b = cs.batch > 1 ? sb : 0;
    args.batch_stride_d = cs.batch > 1 ? sd : 0;
    args.split_k = cs.split_k;
    args.swap_ab = cs.swap_ab;
    args.raster_group = cs.raster_group;
    args.l2_hint_a = cs.l2_hint_a;
    args.l2_hint_b = cs.l2_hint_b;
    args.epilogue = epi;
    Scales const& sc = cs.scales;
    if (sc.set) {
      float const host_scales[4] = {sc.a, sc.b, sc.d, -1.0f};
      TESSERA_CUDA_REQUIRE(cudaMemcpy(scales, host_scales, sizeof host_scales, cudaMemcpyHostToDevice));
      args.scale_a = scales;
      args.scale_b = scales + 1;
      args.scale_d = scales + 2;
      if (sc.amax) args.amax_d = scales + 3;
    }
    gemm::Gemm<Cfg> op;
    if (Status const s = op.can_implement(args); !s.ok()) {
      res.refused = s.message();
      return res;
    }
    std::size_t const ws_bytes = op.workspace_size(args);
    void* const ws = ws_bytes > 0 ? dv::scratch(dv::kWorkspace, ws_bytes) : nullptr;
    if (ws_bytes > 0) TESSERA_CUDA_REQUIRE(cudaMemset(ws, 0, ws_bytes));

    // The accumulation's error per unit of sum |a b|: gemm_check.hpp's u_acc (tf32 inputs, fp8
    // wgmma's 14 bits), grown with sqrt(K / 1024) past K = 1024. The tensor cores add each
    // k-step's products into the float accumulator by truncation, so their errors add up with the
    // number of steps rather than cancel: on the H100, float D of M = 3646, N = 13, K = 14625
    // (random normal operands) was off by 1.006 times the K-independent bound at one output.
    constexpr bool fp8 = gemm::detail::fp8_type<EA>;
    double const growth = std::max(1.0, std::sqrt(double(cs.k) / 1024));
    double const u_acc = growth * (std::is_same_v<EA, float> ? std::ldexp(1.0, -10)
                                   : fp8                     ? std::ldexp(1.0, -13)
                                                             : (std::is_integral_v<EA> ? 0.0 : std::ldexp(1.0, -22)));
    dv::RefProblem<EA, EB, ED> const rp{a + cs.misalign, b + cs.misalign, d, cs.m, cs.n, cs.k, cs.batch, cs.lda, cs.ldb, cs.ldd,
                                        sa, sb, sd, Cfg::a_k_major, Cfg::b_k_major, row, double(sc.a) * sc.b, double(sc.d),
                                        std::max(unit_roundoff<ED>(), unit_roundoff<Rounding>()),
                                        std::max(subnormal_spacing<ED>(), subnormal_spacing<Rounding>()), u_acc, extra_tol};
    for (int r = 0; r < runs; ++r) {
      TESSERA_CUDA_REQUIRE(cudaMemset(d, 0xA5, nd * sizeof(ED)));
      // The split-K counters are left zero by each run: the second run is told so (no memset).
      args.workspace_zeroed = r > 0;
      if (Status const s = op.run(args, ws); !s.ok()) {
        res.refused = s.message();
        return res;
      }
      TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
      dv::RefTally const zero{0, ~0ull, 0, 0, 0};
      TESSERA_CUDA_REQUIRE(cudaMemcpy(tally, &zero, sizeof zero, cudaMemcpyHostToDevice));
      TESSERA_CUDA_REQUIRE(cudaMemset(counts, 0, 2 * sizeof(unsigned long long)));
      // The first run against the reference, the others bit for bit against the first.
      if (r == 0) {
        dim3 const grid(unsigned((cs.n + 15) / 16), unsigned((cs.m + 15) / 16), unsigned(cs.batch));
        dv::reference_kernel<EA, EB, ED, Epi><<<grid, dim3(16, 16)>>>(rp, epi, tally);
        if (runs > 1) TESSERA_CUDA_REQUIRE(cudaMemcpy(first_d, d, nd * sizeof(ED), cudaMemcpyDeviceToDevice));
      } else {
        dv::differ_kernel<ED><<<dv::grid_for(nd), 256>>>(d, first_d, nd, counts);
      }
      dv::clobber_kernel<ED><<<dv::grid_for(nd), 256>>>(d, nd, cs.ldd, sd, d_outer, row ? cs.n : cs.m, cs.batch, counts + 1);
      TESSERA_CUDA_REQUIRE_LAUNCH();
      dv::RefTally t;
      unsigned long long c[2];
      TESSERA_CUDA_REQUIRE(cudaMemcpy(&t, tally, sizeof t, cudaMemcpyDeviceToHost));
      TESSERA_CUDA_REQUIRE(cudaMemcpy(c, counts, sizeof c, cudaMemcpyDeviceToHost));
      res.differ = std::max<std::uint64_t>(res.differ, c[0]);
      res.clobbered = std::max<std::uint64_t>(res.clobbered, c[1]);
      res.worst = std::max(res.worst, double(float_of(t.worst_bits)));
      if (t.wrong > res.wrong || (t.wrong > 0 && res.first < 0)) {
        res.wrong = std::max<std::uint64_t>(res.wrong, t.wrong);
        res.first = std::int64_t(t.first);
        locate_first(res, rp, d, sd);
      }
      if (r == 0 && sc.set && sc.amax) {
        float amax = 0;
        TESSERA_CUDA_REQUIRE(cudaMemcpy(&amax, scales + 3, sizeof amax, cudaMemcpyDeviceToHost));
        res.amax_checked = true;
        res.amax_have = amax;
        res.amax_want = float_of(t.amax_bits);
        // The largest |y| moves by at most the accumulation's bound at the largest sum |a b|.
        res.amax_tol = 1e-3 * res.amax_want + 4 * u_acc * rp.ab * double(float_of(t.mag_bits)) + 1e-6;
      }
    }
    return res;
  }

 private:
  // Where the first wrong output is, its value, and A * B there (before the epilogue and scale_d:
  // A's row and B's column copied back and summed on the host).
  static void locate_first(DeviceResult& res, device_verify::RefProblem<EA, EB, ED> const& rp, ED const* d, std::int64_t sd) {
    std::int64_t const f = res.first, i = f / rp.n % rp.m, j = f % rp.n, bt = f / (std::int64_t(rp.n) * rp.m);
    res.first_b = int(bt);
    res.first_row = int(i);
    res.first_col = int(j);
    ED have;
    TESSERA_CUDA_REQUIRE(cudaMemcpy(&have, d + bt * sd + (rp.d_row_major ? i * rp.ldd + j : j * rp.ldd + i), sizeof have,
                                    cudaMemcpyDeviceToHost));
    res.first_have = device_verify::to_double(have);
    std::vector<EA> x(std::size_t(rp.k));
    std::vector<EB> y(std::size_t(rp.k));
    // K elements of A's row i (1 apart where K-major, lda apart otherwise) and of B's column j.
    EA const* const ai = rp.a + bt * rp.sa + (rp.a_k_major ? i * rp.lda : i);
    EB const* const bj = rp.b + bt * rp.sb + (rp.b_k_major ? j * rp.ldb : j);
    TESSERA_CUDA_REQUIRE(cudaMemcpy2D(x.data(), sizeof(EA), ai, (rp.a_k_major ? 1 : rp.lda) * sizeof(EA), sizeof(EA),
                                      std::size_t(rp.k), cudaMemcpyDeviceToHost));
    TESSERA_CUDA_REQUIRE(cudaMemcpy2D(y.data(), sizeof(EB), bj, (rp.b_k_major ? 1 : rp.ldb) * sizeof(EB), sizeof(EB),
                                      std::size_t(rp.k), cudaMemcpyDeviceToHost));
    double acc = 0;
    for (int kk = 0; kk < rp.k; ++kk) acc += device_verify::to_double(x[std::size_t(kk)]) * device_verify::to_double(y[std::size_t(kk)]);
    res.first_ab = acc;
  }
};

}  // namespace tessera::test
