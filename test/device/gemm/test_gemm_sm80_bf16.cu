// The sm80 GEMM with bfloat16 inputs: all four operand layouts, the standard shapes, every epilogue stage.
#include "fuzz.hpp"
#include "gemm_check.hpp"

TEST_CASE("sm80 GEMM bf16: TN, NT, NN, TT on odd shapes, every epilogue stage", "[gpu][gemm][sm80][bf16]") {
  using namespace tessera;
  tessera::test::TypeSuite<bfloat16_t, bfloat16_t, float, 32>::run();
}

TEST_CASE("sm80 GEMM bf16 fuzz: every layout, random epilogues", "[gpu][gemm][sm80][bf16][fuzz]") {
  using namespace tessera;
  tessera::test::fuzz_layouts<tessera::test::TypeSuite<bfloat16_t, bfloat16_t, float, 32>>("sm80.bf16");
}

// Large grids, each problem run twice (fuzz.hpp's stress_cases), and problems with more than 2^31
// elements in A, B or D, on TN (the suite's every-stage Config, its stages off).
TEST_CASE("sm80 GEMM bf16 stress", "[gpu][gemm][sm80][bf16][stress]") {
  using Cfg = tessera::test::TypeSuite<tessera::bfloat16_t, tessera::bfloat16_t, float, 32>::Cfg<tessera::RowMajor, tessera::ColumnMajor,
                                                                                          tessera::test::AllStages>;
  tessera::test::stress<Cfg>(tessera::test::stress_cases(), 3);
}

TEST_CASE("sm80 GEMM bf16 with 64-bit offsets: A, B or D over 2^31 elements", "[gpu][gemm][sm80][bf16][large]") {
  using Cfg = tessera::test::TypeSuite<tessera::bfloat16_t, tessera::bfloat16_t, float, 32>::Cfg<tessera::RowMajor, tessera::ColumnMajor,
                                                                                          tessera::test::AllStages>;
  tessera::test::stress<Cfg>(tessera::test::large_cases(), 3);
}
