// The sm80 GEMM with tessera::half inputs: all four operand layouts, the standard shapes, every epilogue stage.
#include "gemm_check.hpp"

TEST_CASE("sm80 GEMM f16: TN, NT, NN, TT on odd shapes, every epilogue stage", "[gpu][gemm][sm80][f16]") {
  using namespace tessera;
  tessera::test::TypeSuite<tessera::half, tessera::half, float, 32>::run();
}
