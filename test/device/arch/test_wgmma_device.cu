// wgmma.mma_async on the device: one warpgroup multiplies a 64 x 4K tile of A by a 4K x N tile of
// B (4 k-steps), K-major in swizzled shared tiles or (16-bit types) MN-major in tile::MnMajorTile
// (tile/wgmma_tile.hpp descriptors), A also from registers, for every operand/accumulator type pair the instruction offers and the smallest,
// a middle and the largest N. The result is gathered through the documented accumulator layout
// and compared with a host product in double precision; operands are random multiples of 1/4
// from -2 to 2, so every product and sum is exact in the accumulator type. The accumulators
// start as NaN: the first k-step (ss_first, or rs without accumulate) must overwrite them.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "../support/device_check.hpp"
#include "tessera/arch/sm80/ldmatrix.hpp"
#include "tessera/arch/sm90/wgmma.hpp"
#include "tessera/tile/wgmma_tile.hpp"

using namespace tessera;
using tessera::test::DeviceBuffer;

namespace {

template <class E>
constexpr int kSpan = 128 / int(sizeof(E));  // one 128-byte swizzle span of K per row

// A fragment register for RS: the 16-bit and 8-bit forms pack 2 or 4 consecutive K values, tf32 one.
template <class E>
__device__ std::uint32_t a_register(E const* a, int row, int k) {
  std::uint32_t r = 0;
  constexpr int per = 4 / int(sizeof(E));
  for (int e = 0; e < per; ++e) {
    E const v = a[row * kSpan<E> + k + e];
    std::uint32_t bits = 0;
    memcpy(&bits, &v, sizeof(E));
    r |= bits << (8 * int(sizeof(E)) * e);
  }
  return r;
}

using arch::sm90::Major;

// One operand's shared tile, K-major (a SwizzledTile) or MN-major (tile::MnMajorTile).
template <class E, int MN, int K, Major M>
struct Staged {
  using KTile = tile::SwizzledTile<E, MN, K>;
  using MnTile = tile::MnMajorTile<E, MN, K>;
  static constexpr int size = MN * K;
  __device__ static int offset(int mn, int k) {
    if constexpr (M == Major::K) return int(KTile::layout()(mn, k));
    else return MnTile::offset(mn, k);
  }
  __device__ static std::uint64_t descriptor(void const* base, int ks, int k_bytes) {
    if constexpr (M == Major::K) return tile::k_major_descriptor<KTile>(arch::smem_address(base)).advanced(std::uint32_t(ks * k_bytes)).bits;
    else return tile::mn_major_descriptor<MnTile>(arch::smem_address(base)).advanced(std::uint32_t(ks) * MnTile::k_step_bytes).bits;
  }
};

template <class E, class Acc, int N, bool RS, Major MA = Major::K, Major MB = Major::K>
__global__ void __launch_bounds__(128) wgmma_tile(E const* a, E const* b, float* d) {
  using Mma = arch::sm90::Wgmma<N, E, E, Acc, MA, MB>;
  constexpr int cols = kSpan<E>;
  static_assert(cols == 4 * Mma::K, "the test runs 4 k-steps over one swizzle span");
  using TileA = Staged<E, 64, cols, MA>;
  using TileB = Staged<E, N, cols, MB>;
  __shared__ alignas(1024) E sa[TileA::size];
  __shared__ alignas(1024) E sb[TileB::size];
  int const tid = threadIdx.x;
  for (int i = tid; i < 64 * cols; i += 128) sa[TileA::offset(i / cols, i % cols)] = a[i];
  for (int i = tid; i < N * cols; i += 128) sb[TileB::offset(i / cols, i % cols)] = b[i];
  arch::sm90::fence_proxy_async_shared();
  __syncthreads();

  // Accumulators holding NaN, which the first k-step must overwrite, not add to: ss_first
  // (write-only operands) from shared memory, rs with accumulate = false (scale-d 0) from registers.
  typename Mma::Reg acc[Mma::regs];
  for (auto& x : acc) {
    if constexpr (std::is_same_v<typename Mma::Reg, float>) x = __int_as_float(0x7FC00000);
    else x = 0x7E007E00u;  // two f16 NaNs
  }
  arch::sm90::wgmma_fence_operands(acc);
  int const warp = tid / 32, g = (tid % 32) / 4, t = tid % 4;
  // RS: the A fragments of all k-steps, loaded before the fence that orders them before wgmma:
  // rows 16 warp + g (+8); K values 2 t.. (16-bit), t (tf32) or 4 t.. (8-bit) and the same 8, 4
  // or 16 further on.
  std::uint32_t frag[4][4] = {};
  if constexpr (RS) {
    constexpr int per = 4 / int(sizeof(E)), half_k = Mma::K / 2;
    int const row = 16 * warp + g;
    for (int ks = 0; ks < 4; ++ks) {
      int const k = ks * Mma::K + per * t;
      frag[ks][0] = a_register(a, row, k);
      frag[ks][1] = a_register(a, row + 8, k);
      frag[ks][2] = a_register(a, row, k + half_k);
      frag[ks][3] = a_register(a, row + 8, k + half_k);
    }
  }
  arch::sm90::wgmma_fence();
  TESSERA_UNROLL
  for (int ks = 0; ks < 4; ++ks) {
    int const k_bytes = Mma::K * int(sizeof(E));
    if constexpr (RS) {
      Mma::rs(acc, frag[ks], TileB::descriptor(sb, ks, k_bytes), ks > 0);
    } else {
      if (ks == 0) Mma::ss_first(acc, TileA::descriptor(sa, ks, k_bytes), TileB::descriptor(sb, ks, k_bytes));
      else Mma::ss(acc, TileA::descriptor(sa, ks, k_bytes), TileB::descriptor(sb, ks, k_bytes), true);
    }
  }
  arch::sm90::wgmma_commit_group();
  arch::sm90::wgmma_wait_group<0>();
  arch::sm90::wgmma_fence_operands(acc);
  // Value v = 4 j + 2 h + e of the f32 layout sits at row 16 warp + g + 8 h, column 8 j + 2 t + e;
  // the f16 form holds values 2 r and 2 r + 1 in register r.
  for (int v = 0; v < N / 2; ++v) {
    int const j = v / 4, h = (v / 2) % 2, e = v % 2;
    float value;
    if constexpr (std::is_same_v<Acc, float>) {
      value = acc[v];
    } else {
      std::uint16_t const bits = std::uint16_t(acc[v / 2] >> (16 * e));
      half_t x;
      memcpy(&x, &bits, 2);
      value = float(x);
    }
    d[(16 * warp + g + 8 * h) * N + 8 * j + 2 * t + e] = value;
  }
}

template <class E, class Acc, int N, bool RS, Major MA = Major::K, Major MB = Major::K>
void check() {
  using Mma = arch::sm90::Wgmma<N, E, E, Acc, MA, MB>;
  constexpr int cols = kSpan<E>;
  INFO("m64n" << N << "k" << Mma::K << ", " << sizeof(E) << "-byte operands, " << (std::is_same_v<Acc, float> ? "f32" : "f16")
              << " accumulators, A from " << (RS ? "registers" : "shared memory") << ", A " << (MA == Major::K ? "K" : "M")
              << "-major, B " << (MB == Major::K ? "K" : "N") << "-major");
  std::mt19937 rng(N * 31 + int(sizeof(E)) + RS);
  std::uniform_int_distribution<int> pick(-8, 8);
  std::vector<E> ha(64 * cols), hb(N * cols);
  for (auto& x : ha) x = E(float(pick(rng)) / 4);
  for (auto& x : hb) x = E(float(pick(rng)) / 4);
  DeviceBuffer<E> da(ha), db(hb);
  DeviceBuffer<float> dd(64 * N);  // poisoned
  wgmma_tile<E, Acc, N, RS, MA, MB><<<1, 128>>>(da.get(), db.get(), dd.get());
  TESSERA_CUDA_REQUIRE_LAUNCH();
  std::vector<float> const got = dd.to_host();
  int bad = 0;
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < N; ++c) {
      double want = 0;
      for (int k = 0; k < cols; ++k) want += double(float(ha[r * cols + k])) * double(float(hb[c * cols + k]));
      if (double(got[r * N + c]) != want && ++bad <= 5) UNSCOPED_INFO("D(" << r << ", " << c << ") = " << got[r * N + c] << ", want " << want);
    }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("wgmma m64nNk16 bf16/f16 from swizzled shared tiles and from registers", "[gpu][arch][sm90][wgmma]") {
  tessera::test::require_gpu();
  check<bfloat16_t, float, 8, false>();
  check<bfloat16_t, float, 64, false>();
  check<bfloat16_t, float, 256, false>();
  check<bfloat16_t, float, 128, true>();
  check<half_t, float, 96, false>();
  check<half_t, half_t, 64, false>();
  check<half_t, half_t, 8, true>();
}

TEST_CASE("wgmma m64nNk16 with MN-major operands (transposed) from tile::MnMajorTile", "[gpu][arch][sm90][wgmma]") {
  tessera::test::require_gpu();
  check<bfloat16_t, float, 128, false, Major::MN, Major::K>();
  check<bfloat16_t, float, 128, false, Major::K, Major::MN>();
  check<bfloat16_t, float, 256, false, Major::MN, Major::MN>();
  check<half_t, half_t, 64, false, Major::MN, Major::MN>();
  check<bfloat16_t, float, 64, true, Major::K, Major::MN>();
}

TEST_CASE("wgmma m64nNk8 tf32 and m64nNk32 fp8 (e4m3, e5m2)", "[gpu][arch][sm90][wgmma]") {
  tessera::test::require_gpu();
  check<float, float, 64, false>();
  check<float, float, 256, false>();
  check<float, float, 32, true>();
  check<float8_e4m3_t, float, 64, false>();
  check<float8_e4m3_t, float, 256, true>();
  check<float8_e5m2_t, float, 128, false>();
  check<float8_e4m3_t, half_t, 64, false>();
}
