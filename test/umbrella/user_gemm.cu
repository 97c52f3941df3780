// A user's translation unit: the umbrella header alone, a GEMM with a fused epilogue instantiated
// (and, with nvcc, a gemm::Tuned dispatch). Compiled by nvcc and hipcc (test/CMakeLists.txt).
#include <tessera/tessera.hpp>

using namespace tessera;

using Epi = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::GeluTanh>;
#if defined(TESSERA_HIP)
using Cfg = gemm::Config<arch::Gfx90a, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float, gemm::BlockTile<128, 128, 32>,
                         gemm::Warps<2, 2>, gemm::Stages<2>, Epi>;
#else
using Cfg = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float, gemm::BlockTile<128, 256, 64>,
                         gemm::Warpgroups<2>, gemm::Stages<4>, Epi>;
#endif

Status user_gemm(gemm::Arguments<Cfg> args, bfloat16_t const* bias, void* workspace, runtime::Stream stream) {
  args.epilogue = Epi::make(bias);  // README.md's form
  if (Status s = gemm::Gemm<Cfg>::can_implement(args); !s) return s;
  return gemm::Gemm<Cfg>{}.run(args, workspace, stream);
}
