// The sm80 GEMM with float inputs: all four operand layouts, the standard shapes, every epilogue stage.
#include "fuzz.hpp"
#include "gemm_check.hpp"

TEST_CASE("sm80 GEMM tf32: TN, NT, NN, TT on odd shapes, every epilogue stage", "[gpu][gemm][sm80][tf32]") {
  using namespace tessera;
  tessera::test::TypeSuite<float, float, float, 32>::run();
}

TEST_CASE("sm80 GEMM tf32 fuzz: every layout, random epilogues", "[gpu][gemm][sm80][tf32][fuzz]") {
  using namespace tessera;
  tessera::test::fuzz_layouts<tessera::test::TypeSuite<float, float, float, 32>>("sm80.tf32");
}
