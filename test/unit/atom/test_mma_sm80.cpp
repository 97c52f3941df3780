// The sm_80 MMA atoms: each thread-value layout is a bijection onto its tile, equals the PTX ISA's
// fragment formula, and a host-emulated warp computes the plain matrix product.
#include <catch2/catch.hpp>

#include "tessera/atom/mma_sm80.hpp"
#include "warp_emulator.hpp"

using namespace tessera;
using namespace tessera::atom;

namespace {

// The PTX ISA's fragment formulas, written out independently of the layouts.
struct Ptx {
  static int g(int lane) { return lane >> 2; }
  static int t4(int lane) { return lane % 4; }
  // m16n8k16, 16-bit inputs
  static int a16_row(int l, int i) { return g(l) + 8 * ((i / 2) % 2); }
  static int a16_col(int l, int i) { return 2 * t4(l) + i % 2 + 8 * (i / 4); }
  static int b16_k(int l, int i) { return 2 * t4(l) + i % 2 + 8 * (i / 2); }
  // m16n8k8 tf32
  static int a8_row(int l, int i) { return g(l) + 8 * (i % 2); }
  static int a8_col(int l, int i) { return t4(l) + 4 * (i / 2); }
  static int b8_k(int l, int i) { return t4(l) + 4 * i; }
  // m16n8k32 s8
  static int a32_row(int l, int i) { return g(l) + 8 * ((i / 4) % 2); }
  static int a32_col(int l, int i) { return 4 * t4(l) + i % 4 + 16 * (i / 8); }
  static int b32_k(int l, int i) { return 4 * t4(l) + i % 4 + 16 * (i / 4); }
  // accumulators of every m16n8 shape
  static int c_row(int l, int i) { return g(l) + 8 * (i / 2); }
  static int c_col(int l, int i) { return 2 * t4(l) + i % 2; }
};

template <class Traits, class ARow, class ACol, class BK>
void check_atom(ARow a_row, ACol a_col, BK b_k) {
  constexpr int M = Traits::M, N = Traits::N, K = Traits::K;
  auto const a = Traits::a_layout();
  auto const b = Traits::b_layout();
  auto const c = Traits::c_layout();
  test::require_atom_layouts<Traits>(1234);
  int const av = M * K / 32, bv = N * K / 32, cv = M * N / 32;
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < av; ++i) REQUIRE(a(lane, i) == a_row(lane, i) + M * a_col(lane, i));
    for (int i = 0; i < bv; ++i) REQUIRE(b(lane, i) == Ptx::g(lane) + N * b_k(lane, i));
    for (int i = 0; i < cv; ++i) REQUIRE(c(lane, i) == Ptx::c_row(lane, i) + M * Ptx::c_col(lane, i));
  }
}

}  // namespace

TEST_CASE("Sm80 16x8x16 bf16/f16 atoms", "[atom][sm80]") {
  check_atom<MmaTraits<arch::Sm80_16x8x16_F32BF16BF16F32_TN>>(Ptx::a16_row, Ptx::a16_col, Ptx::b16_k);
  check_atom<MmaTraits<arch::Sm80_16x8x16_F32F16F16F32_TN>>(Ptx::a16_row, Ptx::a16_col, Ptx::b16_k);
  check_atom<MmaTraits<arch::Sm80_16x8x16_F16F16F16F16_TN>>(Ptx::a16_row, Ptx::a16_col, Ptx::b16_k);
}

TEST_CASE("Sm80 16x8x8 tf32 atom", "[atom][sm80]") {
  check_atom<MmaTraits<arch::Sm80_16x8x8_F32TF32TF32F32_TN>>(Ptx::a8_row, Ptx::a8_col, Ptx::b8_k);
}

TEST_CASE("Sm80 16x8x32 s8 atom", "[atom][sm80]") {
  check_atom<MmaTraits<arch::Sm80_16x8x32_S32S8S8S32_TN>>(Ptx::a32_row, Ptx::a32_col, Ptx::b32_k);
}
