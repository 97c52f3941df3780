// The MFMA atoms on an AMD device: one wavefront scatters A, B and C into registers by the atom's
// layouts (atom/mma_gfx9.hpp), runs the instruction and gathers D, which must equal the host's
// product exactly (small integers). Built for every HIP target by CI, where no device exists: the
// program then says so and exits 77, which ctest reports as skipped, not passed. On a device it
// runs the atoms its architecture has.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tessera/atom/mma_gfx9.hpp"

using namespace tessera;

template <class Traits>
__global__ void mfma_once(double const* a, double const* b, double const* c, double* d) {
  using Op = typename Traits::Op;
  using EA = typename Traits::ElementA;
  using EB = typename Traits::ElementB;
  using EC = typename Traits::ElementC;
  constexpr int M = Traits::M, N = Traits::N, T = Traits::threads;
  constexpr int AV = int(size(Traits::a_layout())) / T, BV = int(size(Traits::b_layout())) / T;
  constexpr int CV = int(size(Traits::c_layout())) / T;
  int const lane = int(threadIdx.x);
  // Values in register order: value v of A at a_layout(lane, v) = m + M k.
  EA av[AV];
  EB bv[BV];
  EC cv[CV], dv[CV];
  for (int v = 0; v < AV; ++v) av[v] = EA(float(a[int(Traits::a_layout()(lane, v))]));
  for (int v = 0; v < BV; ++v) bv[v] = EB(float(b[int(Traits::b_layout()(lane, v))]));  // n + N k of B^T
  for (int v = 0; v < CV; ++v) cv[v] = EC(c[int(Traits::c_layout()(lane, v))]);
  typename Op::ARegisters ra;
  typename Op::BRegisters rb;
  static_assert(sizeof ra == sizeof av && sizeof rb == sizeof bv && sizeof(typename Op::CRegisters) == sizeof cv,
                "mfma_atoms: the layouts' values do not fill the instruction's registers");
  std::memcpy(&ra, av, sizeof ra);
  std::memcpy(&rb, bv, sizeof rb);
  Op::fma(dv, ra, rb, cv);
  for (int v = 0; v < CV; ++v) d[int(Traits::c_layout()(lane, v))] = double(dv[v]);
  (void)M, (void)N;
}

// Runs one atom against the host product; returns the number of wrong elements.
template <class Traits>
int check(char const* name) {
  constexpr int M = Traits::M, N = Traits::N, K = Traits::K;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<double> a(M * K), bt(N * K), c(M * N), d(M * N, -12345.0), want(M * N);
  for (auto* v : {&a, &bt, &c})
    for (auto& x : *v) x = dist(rng);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = c[m + M * n];
      for (int k = 0; k < K; ++k) s += a[m + M * k] * bt[n + N * k];
      want[m + M * n] = s;
    }
  double *da, *db, *dc, *dd;
  (void)hipMalloc(&da, a.size() * 8), (void)hipMalloc(&db, bt.size() * 8), (void)hipMalloc(&dc, c.size() * 8),
      (void)hipMalloc(&dd, d.size() * 8);
  (void)hipMemcpy(da, a.data(), a.size() * 8, hipMemcpyHostToDevice);
  (void)hipMemcpy(db, bt.data(), bt.size() * 8, hipMemcpyHostToDevice);
  (void)hipMemcpy(dc, c.data(), c.size() * 8, hipMemcpyHostToDevice);
  (void)hipMemcpy(dd, d.data(), d.size() * 8, hipMemcpyHostToDevice);
  mfma_once<Traits><<<1, Traits::threads>>>(da, db, dc, dd);
  hipError_t const err = hipDeviceSynchronize();
  (void)hipMemcpy(d.data(), dd, d.size() * 8, hipMemcpyDeviceToHost);
  (void)hipFree(da), (void)hipFree(db), (void)hipFree(dc), (void)hipFree(dd);
  int wrong = err == hipSuccess ? 0 : M * N;
  for (int i = 0; i < M * N; ++i) wrong += d[i] != want[i];
  std::printf("%-40s %s (%d of %d wrong)\n", name, wrong ? "FAILED" : "passed", wrong, M * N);
  return wrong;
}

int main() {
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0) {
    std::printf("skipped: no AMD device (the atoms' layouts are proven on the host: test_mma_gfx9)\n");
    return 77;
  }
  hipDeviceProp_t prop;
  (void)hipGetDeviceProperties(&prop, 0);
  std::string const arch = prop.gcnArchName;
  bool const cdna3 = arch.rfind("gfx94", 0) == 0, cdna2 = arch.rfind("gfx90a", 0) == 0, cdna1 = arch.rfind("gfx908", 0) == 0;
  if (!cdna1 && !cdna2 && !cdna3) {
    std::printf("skipped: %s has no MFMA\n", arch.c_str());
    return 77;
  }
  int wrong = 0;
  using namespace tessera::atom;
  wrong += check<MmaTraits<arch::Gfx9_32x32x8_F32F16F16F32>>("v_mfma_f32_32x32x8f16");
  wrong += check<MmaTraits<arch::Gfx9_16x16x16_F32F16F16F32>>("v_mfma_f32_16x16x16f16");
  wrong += check<MmaTraits<arch::Gfx9_32x32x2_F32F32F32F32>>("v_mfma_f32_32x32x2f32");
  if (!cdna1) {
    wrong += check<MmaTraits<arch::Gfx9_32x32x8_F32BF16BF16F32>>("v_mfma_f32_32x32x8bf16_1k");
    wrong += check<MmaTraits<arch::Gfx9_16x16x16_F32BF16BF16F32>>("v_mfma_f32_16x16x16bf16_1k");
  }
  if (!cdna3) wrong += check<MmaTraits<arch::Gfx9_32x32x8_S32S8S8S32>>("v_mfma_i32_32x32x8i8");
  if (cdna3) {
    wrong += check<MmaTraits<arch::Gfx940_32x32x16_S32S8S8S32>>("v_mfma_i32_32x32x16_i8");
    wrong += check<MmaTraits<arch::Gfx940_32x32x4_F32XF32XF32F32>>("v_mfma_f32_32x32x4_xf32");
    wrong += check<MmaTraits<arch::Gfx940_32x32x16_F32F8F8F32>>("v_mfma_f32_32x32x16_fp8_fp8");
    wrong += check<MmaTraits<arch::Gfx940_32x32x16_F32BF8BF8F32>>("v_mfma_f32_32x32x16_bf8_bf8");
  }
  return wrong == 0 ? 0 : 1;
}
