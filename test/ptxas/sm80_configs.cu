// The SM80 GEMM configurations the benches and examples use (bench/gemm/bench_gemm_sm80.cu,
// examples/0[0-2]_*), compiled with `-Xptxas -v`: the
// check (test/CMakeLists.txt) fails if any kernel here spills registers to local memory. The
// 16-byte path of each is instantiated: it is the one every aligned problem runs.
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera/gemm/gemm.hpp"

using namespace tessera;

namespace {
template <class E, class D, class Acc, int BM, int BN, int BK, int WM, int WN, int S, class Epi = epilogue::Identity>
using Tn = gemm::Config<arch::Sm80, E, RowMajor, E, ColumnMajor, D, Acc, gemm::BlockTile<BM, BN, BK>, gemm::Warps<WM, WN>,
                        gemm::Stages<S>, Epi>;
using BiasGelu = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::GeluTanh>;
using BiasGeluResidual = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::GeluTanh,
                                         epilogue::ResidualAdd<bfloat16_t>>;  // examples/01_fused_epilogue
}  // namespace

#define TESSERA_INSTANTIATE(...) \
  template __global__ void gemm::sm80::gemm_kernel<__VA_ARGS__, 16, 16>(gemm::sm80::Params<__VA_ARGS__>);

TESSERA_INSTANTIATE(Tn<bfloat16_t, bfloat16_t, float, 128, 256, 64, 2, 4, 3>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, bfloat16_t, float, 128, 256, 64, 2, 4, 3, BiasGelu>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, bfloat16_t, float, 128, 256, 64, 2, 4, 3, BiasGeluResidual>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, bfloat16_t, float, 128, 256, 32, 2, 4, 4>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, bfloat16_t, float, 128, 128, 32, 2, 2, 4>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, bfloat16_t, float, 256, 128, 32, 4, 2, 4>)
TESSERA_INSTANTIATE(Tn<tessera::half_t, tessera::half_t, float, 128, 256, 64, 2, 4, 3>)
TESSERA_INSTANTIATE(Tn<float, float, float, 128, 256, 32, 2, 4, 3>)
TESSERA_INSTANTIATE(Tn<std::int8_t, std::int32_t, std::int32_t, 128, 256, 64, 2, 4, 3>)
