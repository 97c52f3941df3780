// The sm_80 MMA atoms on the GPU: fragments loaded through the atom's thread-value layouts, the
// real mma.sync, results stored through the C layout, compared with a host product.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

#include "../support/device_check.hpp"
#include "tessera/atom/mma_sm80.hpp"

using namespace tessera;
using namespace tessera::atom;
using tessera::test::DeviceBuffer;

namespace {

// Packs `Count` elements into 32-bit registers in value order (value v of a 16-bit operand is half
// v % 2 of register v / 2, and so on).
template <class Element, int Count, int Regs>
__device__ void pack(Element const (&values)[Count], std::uint32_t (&regs)[Regs]) {
  static_assert(sizeof(Element) * Count == 4 * Regs, "pack: the values do not fill the registers exactly");
  memcpy(regs, values, sizeof(values));
}

// One warp: A is M x K column-major, B is K x N column-major, C and D are M x N column-major.
template <class Traits>
__global__ void run_atom(typename Traits::ElementA const* a, typename Traits::ElementB const* b,
                         typename Traits::ElementC const* c, typename Traits::ElementC* d) {
  using Op = typename Traits::Op;
  constexpr int M = Traits::M, N = Traits::N, K = Traits::K;
  constexpr int AV = M * K / 32, BV = N * K / 32, CV = M * N / 32;
  int const lane = threadIdx.x;
  typename Traits::ElementA av[AV];
  typename Traits::ElementB bv[BV];
  typename Traits::ElementC cv[CV];
  for (int v = 0; v < AV; ++v) av[v] = a[int(Traits::a_layout()(lane, v))];
  for (int v = 0; v < BV; ++v) {
    int const idx = int(Traits::b_layout()(lane, v));  // n + N * k
    bv[v] = b[idx / N + K * (idx % N)];
  }
  for (int v = 0; v < CV; ++v) cv[v] = c[int(Traits::c_layout()(lane, v))];
  std::uint32_t ar[sizeof(av) / 4], br[sizeof(bv) / 4];
  pack(av, ar);
  pack(bv, br);
  if constexpr (std::is_same_v<typename Traits::ElementC, tessera::half_t>) {
    std::uint32_t cr[2], dr[2];
    pack(cv, cr);
    Op::fma(dr, ar, br, cr);
    typename Traits::ElementC dv[CV];
    memcpy(dv, dr, sizeof(dv));
    for (int v = 0; v < CV; ++v) d[int(Traits::c_layout()(lane, v))] = dv[v];
  } else {
    typename Traits::ElementC dv[CV];
    Op::fma(dv, ar, br, cv);
    for (int v = 0; v < CV; ++v) d[int(Traits::c_layout()(lane, v))] = dv[v];
  }
}

template <class T>
T from_int(int x) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int8_t>) {
    return T(x);
  } else {
    return T(float(x));
  }
}
template <class T>
double to_double(T x) {
  if constexpr (std::is_arithmetic_v<T>) {
    return double(x);
  } else {
    return double(float(x));
  }
}

template <class Traits>
void check_atom_on_device() {
  tessera::test::require_gpu();
  using EA = typename Traits::ElementA;
  using EB = typename Traits::ElementB;
  using EC = typename Traits::ElementC;
  constexpr int M = Traits::M, N = Traits::N, K = Traits::K;
  std::mt19937 rng(77);
  std::uniform_int_distribution<int> dist(-6, 6);
  auto nonzero = [&] {
    int x;
    do { x = dist(rng); } while (x == 0);
    return x;
  };
  std::vector<int> ia(M * K), ib(K * N), ic(M * N);
  for (auto& x : ia) x = nonzero();
  for (auto& x : ib) x = nonzero();
  for (auto& x : ic) x = nonzero();
  std::vector<EA> ha(M * K);
  std::vector<EB> hb(K * N);
  std::vector<EC> hc(M * N);
  for (int i = 0; i < M * K; ++i) ha[i] = from_int<EA>(ia[i]);
  for (int i = 0; i < K * N; ++i) hb[i] = from_int<EB>(ib[i]);
  for (int i = 0; i < M * N; ++i) hc[i] = from_int<EC>(ic[i]);
  DeviceBuffer<EA> da(ha);
  DeviceBuffer<EB> db(hb);
  DeviceBuffer<EC> dc(hc);
  DeviceBuffer<EC> dd(M * N);  // poisoned
  run_atom<Traits><<<1, 32>>>(da.get(), db.get(), dc.get(), dd.get());
  TESSERA_CUDA_REQUIRE_LAUNCH();
  auto got = dd.to_host();
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double ref = ic[m + M * n];
      for (int k = 0; k < K; ++k) ref += double(ia[m + M * k]) * double(ib[k + K * n]);
      INFO("D(" << m << ", " << n << ")");
      REQUIRE(to_double(got[m + M * n]) == ref);  // small integers: exact in every accumulator type
    }
}

}  // namespace

TEST_CASE("mma.sync atoms compute D = A*B + C through their thread-value layouts", "[gpu][atom][sm80]") {
  SECTION("16x8x16 bf16 -> f32") { check_atom_on_device<MmaTraits<arch::Sm80_16x8x16_F32BF16BF16F32_TN>>(); }
  SECTION("16x8x16 f16 -> f32") { check_atom_on_device<MmaTraits<arch::Sm80_16x8x16_F32F16F16F32_TN>>(); }
  SECTION("16x8x16 f16 -> f16") { check_atom_on_device<MmaTraits<arch::Sm80_16x8x16_F16F16F16F16_TN>>(); }
  SECTION("16x8x8 tf32 -> f32") { check_atom_on_device<MmaTraits<arch::Sm80_16x8x8_F32TF32TF32F32_TN>>(); }
  SECTION("16x8x32 s8 -> s32") { check_atom_on_device<MmaTraits<arch::Sm80_16x8x32_S32S8S8S32_TN>>(); }
}
