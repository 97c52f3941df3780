// The sm80 GEMM with bfloat16 inputs: all four operand layouts, the standard shapes, every epilogue stage.
#include "gemm_check.hpp"

TEST_CASE("sm80 GEMM bf16: TN, NT, NN, TT on odd shapes, every epilogue stage", "[gpu][gemm][sm80][bf16]") {
  using namespace tessera;
  tessera::test::TypeSuite<bfloat16, bfloat16, float, 32>::run();
}
