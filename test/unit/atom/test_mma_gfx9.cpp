// The AMD MFMA atoms: each thread-value layout is a bijection onto its tile, equals the CDNA ISA's
// register mapping (lane, register, bit offset -> element), and a host-emulated 64-lane wavefront
// computes the plain matrix product.
#include <catch2/catch.hpp>

#include "tessera/atom/mma_gfx9.hpp"
#include "warp_emulator.hpp"

using namespace tessera;
using namespace tessera::atom;

namespace {

// The ISA's mapping from a register to the element it holds, as AMD's matrix instruction
// calculator states it per instruction, written out independently of the layouts. Value v of an
// operand of `bits`-bit elements is in register v / (32 / bits) at bit offset bits * (v % (32 / bits)).
struct Reg {
  int gpr, bit;
};
Reg reg_of(int v, int bits) { return {v / (32 / bits), bits * (v % (32 / bits))}; }

// A / B: the row of A (column of B) and k of (lane, register). `big` is the 32x32 form.
struct Isa {
  // f16 / bf16_1k, 32x32x8 and 16x16x16:  k = 4 * (lane / L) + 2 * GPR + bit / 16
  static int k_16bit(int lane, Reg r, int lanes) { return 4 * (lane / lanes) + 2 * r.gpr + r.bit / 16; }
  // f32 32x32x2: k = lane / 32
  static int k_f32(int lane, Reg) { return lane / 32; }
  // xf32 32x32x4: k = 2 * (lane / 32) + GPR
  static int k_xf32(int lane, Reg r) { return 2 * (lane / 32) + r.gpr; }
  // i8 32x32x8 (one register): k = 4 * (lane / 32) + bit / 8
  static int k_i8_k8(int lane, Reg r) { return 4 * (lane / 32) + r.bit / 8; }
  // i8 32x32x16 / fp8 (two registers): k = 8 * (lane / 32) + 4 * GPR + bit / 8
  static int k_i8_k16(int lane, Reg r) { return 8 * (lane / 32) + 4 * r.gpr + r.bit / 8; }
  // D of 32x32: i = 8 * (GPR / 4) % 32 + 4 * (lane / 32) + GPR % 4, j = lane % 32
  static int d32_i(int lane, int gpr) { return (8 * (gpr / 4)) % 32 + 4 * (lane / 32) + gpr % 4; }
  // D of 16x16: i = 4 * (lane / 16) + GPR % 4, j = lane % 16
  static int d16_i(int lane, int gpr) { return 4 * (lane / 16) + gpr % 4; }
};

// `k_of(lane, Reg)`: the ISA's k for A and B; `bits`: their element width.
template <class Traits, class KOf>
void check_atom(int bits, KOf k_of) {
  constexpr int M = Traits::M, N = Traits::N, K = Traits::K, T = Traits::threads;
  STATIC_REQUIRE(T == 64);
  auto const a = Traits::a_layout();
  auto const b = Traits::b_layout();
  auto const c = Traits::c_layout();
  test::require_atom_layouts<Traits>(4321);
  int const av = M * K / T, bv = N * K / T, cv = M * N / T;
  for (int lane = 0; lane < T; ++lane) {
    for (int v = 0; v < av; ++v) REQUIRE(a(lane, v) == lane % M + M * k_of(lane, reg_of(v, bits)));
    for (int v = 0; v < bv; ++v) REQUIRE(b(lane, v) == lane % N + N * k_of(lane, reg_of(v, bits)));
    for (int v = 0; v < cv; ++v) {
      int const i = M == 32 ? Isa::d32_i(lane, v) : Isa::d16_i(lane, v);
      REQUIRE(c(lane, v) == i + M * (lane % N));
    }
  }
}

}  // namespace

TEST_CASE("Gfx9 MFMA f16 and bf16_1k atoms", "[atom][gfx9]") {
  auto const k32 = [](int lane, Reg r) { return Isa::k_16bit(lane, r, 32); };
  auto const k16 = [](int lane, Reg r) { return Isa::k_16bit(lane, r, 16); };
  check_atom<MmaTraits<arch::Gfx9_32x32x8_F32F16F16F32>>(16, k32);
  check_atom<MmaTraits<arch::Gfx9_32x32x8_F32BF16BF16F32>>(16, k32);
  check_atom<MmaTraits<arch::Gfx9_16x16x16_F32F16F16F32>>(16, k16);
  check_atom<MmaTraits<arch::Gfx9_16x16x16_F32BF16BF16F32>>(16, k16);
}

TEST_CASE("Gfx9 MFMA f32 and gfx940 xf32 atoms", "[atom][gfx9]") {
  check_atom<MmaTraits<arch::Gfx9_32x32x2_F32F32F32F32>>(32, Isa::k_f32);
  check_atom<MmaTraits<arch::Gfx940_32x32x4_F32XF32XF32F32>>(32, Isa::k_xf32);
}

TEST_CASE("Gfx9 MFMA i8 atoms (K = 8 on gfx90a, 16 on gfx940)", "[atom][gfx9]") {
  check_atom<MmaTraits<arch::Gfx9_32x32x8_S32S8S8S32>>(8, Isa::k_i8_k8);
  check_atom<MmaTraits<arch::Gfx940_32x32x16_S32S8S8S32>>(8, Isa::k_i8_k16);
}

TEST_CASE("Gfx940 MFMA fp8 and bf8 atoms (FNUZ formats)", "[atom][gfx9]") {
  // 8 values per lane in two registers, laid out as i8 with K = 16.
  check_atom<MmaTraits<arch::Gfx940_32x32x16_F32F8F8F32>>(8, Isa::k_i8_k16);
  check_atom<MmaTraits<arch::Gfx940_32x32x16_F32BF8BF8F32>>(8, Isa::k_i8_k16);
  STATIC_REQUIRE(std::is_same_v<MmaTraits<arch::Gfx940_32x32x16_F32F8F8F32>::ElementA, float8_e4m3_fnuz_t>);
  STATIC_REQUIRE(std::is_same_v<MmaTraits<arch::Gfx940_32x32x16_F32BF8BF8F32>::ElementB, float8_e5m2_fnuz_t>);
}

TEST_CASE("Gfx9 MFMA register counts match the layouts", "[atom][gfx9]") {
  // Values per lane times the element width fill the instruction's registers exactly.
  using F16 = MmaTraits<arch::Gfx9_32x32x8_F32F16F16F32>;
  STATIC_REQUIRE(int(size(F16::a_layout())) / 64 * 16 == 32 * int(sizeof(arch::Gfx9_32x32x8_F32F16F16F32::ARegisters) / 4));
  STATIC_REQUIRE(int(size(F16::c_layout())) / 64 == int(sizeof(arch::Gfx9_32x32x8_F32F16F16F32::CRegisters) / 4));
  using I8 = MmaTraits<arch::Gfx940_32x32x16_S32S8S8S32>;
  STATIC_REQUIRE(int(size(I8::a_layout())) / 64 * 8 == 32 * int(sizeof(arch::Gfx940_32x32x16_S32S8S8S32::ARegisters) / 4));
  using C16 = MmaTraits<arch::Gfx9_16x16x16_F32F16F16F32>;
  STATIC_REQUIRE(int(size(C16::c_layout())) / 64 == int(sizeof(arch::Gfx9_16x16x16_F32F16F16F32::CRegisters) / 4));
  using F32 = MmaTraits<arch::Gfx9_32x32x2_F32F32F32F32>;
  STATIC_REQUIRE(int(size(F32::a_layout())) / 64 == int(sizeof(arch::Gfx9_32x32x2_F32F32F32F32::ARegisters) / 4));
}
