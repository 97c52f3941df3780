// The sm80 GEMM with tessera::half inputs: all four operand layouts, the standard shapes, every epilogue stage.
#include "fuzz.hpp"
#include "gemm_check.hpp"

TEST_CASE("sm80 GEMM f16: TN, NT, NN, TT on odd shapes, every epilogue stage", "[gpu][gemm][sm80][f16]") {
  using namespace tessera;
  tessera::test::TypeSuite<tessera::half_t, tessera::half_t, float, 32>::run();
}

TEST_CASE("sm80 GEMM f16 fuzz: every layout, random epilogues", "[gpu][gemm][sm80][f16][fuzz]") {
  using namespace tessera;
  tessera::test::fuzz_layouts<tessera::test::TypeSuite<tessera::half_t, tessera::half_t, float, 32>>("sm80.f16");
}
