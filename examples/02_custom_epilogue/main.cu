// 02_custom_epilogue: writing your own epilogue stage.
//
// A stage is any type with
//     TESSERA_HD float operator()(float x, epilogue::Coord const& at) const;
// x is the value so far (the accumulator, after the stages before this one); `at` says where the
// element lands: at.row, at.col in D and at.batch. Members are the stage's run-time parameters;
// they are copied to the kernel with the arguments. A Chain checks the signature at compile time
// (a stage without it fails with one "epilogue::Chain: ..." message).
//
// Two stages here: a leaky ReLU with a run-time slope, and a causal mask that uses the
// coordinate (elements above the diagonal become a fill value), as in attention scores. They run
// after the library's LinearCombination (alpha * acc).
// Build: see README.md; run: ./02_custom_epilogue
#include <cstdio>

#include "../common/example_util.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera/gemm/gemm.hpp"

using namespace tessera;

struct LeakyRelu {
  float slope = 0.01f;
  TESSERA_HD float operator()(float x, epilogue::Coord const&) const { return x > 0.0f ? x : slope * x; }
};

struct CausalMask {
  float fill = 0.0f;  // what the masked elements become
  TESSERA_HD float operator()(float x, epilogue::Coord const& at) const { return at.col > at.row ? fill : x; }
};

using Epilogue = epilogue::Chain<epilogue::LinearCombination<>, LeakyRelu, CausalMask>;
using Config = gemm::Config<arch::Sm80, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float,
                            gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<4>, Epilogue>;

int main() {
  if (!example::have_gpu()) return 0;
  int const m = 513, n = 513, k = 320;
  float const alpha = 0.125f, slope = 0.1f, fill = -1.0f;
  example::TnOperands ops(m, n, k);
  auto args = ops.arguments<Config>();
  args.epilogue = Epilogue{{alpha}, {slope}, {fill}};  // one initializer per stage, in order

  if (Status const s = gemm::Gemm<Config>{}.run(args); !s) {
    std::printf("run: %s\n", s.message().c_str());
    return 1;
  }
  EXAMPLE_CUDA(cudaDeviceSynchronize());

  int const status = example::compare("02_custom_epilogue", ops.result(), m, n, [&](int i, int j) {
    if (j > i) return double(fill);
    double const x = alpha * example::dot(ops.a, ops.b, k, i, j);
    return x > 0 ? x : slope * x;
  });
  return status;
}
