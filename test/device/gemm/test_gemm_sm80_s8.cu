// The sm80 GEMM with std::int8_t inputs: all four operand layouts, the standard shapes, every epilogue stage.
#include "fuzz.hpp"
#include "gemm_check.hpp"

TEST_CASE("sm80 GEMM s8: TN, NT, NN, TT on odd shapes, every epilogue stage", "[gpu][gemm][sm80][s8]") {
  using namespace tessera;
  tessera::test::TypeSuite<std::int8_t, std::int32_t, std::int32_t, 64>::run();
}

TEST_CASE("sm80 GEMM s8 fuzz: every layout, random epilogues", "[gpu][gemm][sm80][s8][fuzz]") {
  using namespace tessera;
  tessera::test::fuzz_layouts<tessera::test::TypeSuite<std::int8_t, std::int32_t, std::int32_t, 64>>("sm80.s8");
}
