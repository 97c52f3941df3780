// The SM90 GEMM configurations the benches use (bench/gemm/bench_gemm_sm90.cu), compiled with
// `-Xptxas -v`: the check (test/CMakeLists.txt) fails if any kernel here spills registers to local
// memory. The PTX checks read the same file for wgmma and TMA.
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera/gemm/gemm.hpp"

using namespace tessera;

namespace {
template <class E, int BM, int BN, int WG, int S, class Epi = epilogue::Identity, class Schedule = gemm::Cooperative,
          class LA = RowMajor, class LB = ColumnMajor, class Cluster = gemm::ClusterShape<1, 1>>
using Tn = gemm::Config<arch::Sm90, E, LA, E, LB, E, float, gemm::BlockTile<BM, BN, 64>,
                        gemm::Warpgroups<WG, Schedule, Cluster>, gemm::Stages<S>, Epi>;
using BiasGelu = epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::GeluTanh>;
}  // namespace

#define TESSERA_INSTANTIATE(...) \
  template __global__ void gemm::sm90::gemm_kernel<__VA_ARGS__>(__grid_constant__ gemm::sm90::Params<__VA_ARGS__> const);

TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 256, 2, 4>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 256, 2, 4, BiasGelu>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 128, 2, 6>)
TESSERA_INSTANTIATE(Tn<tessera::half_t, 128, 256, 2, 4>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 128, 2, 5, epilogue::Identity, gemm::PingPong>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 128, 2, 5, BiasGelu, gemm::PingPong>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 64, 256, 2, 4, epilogue::Identity, gemm::PingPong>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 256, 2, 4, epilogue::Identity, gemm::Cooperative, ColumnMajor, RowMajor>)  // NT
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 256, 2, 4, epilogue::Identity, gemm::Cooperative, RowMajor, ColumnMajor, gemm::ClusterShape<2, 1>>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 256, 2, 4, BiasGelu, gemm::Cooperative, RowMajor, ColumnMajor, gemm::ClusterShape<2, 1>>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 256, 2, 4, epilogue::Identity, gemm::Cooperative, RowMajor, ColumnMajor, gemm::ClusterShape<1, 2>>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 64, 256, 2, 4, epilogue::Identity, gemm::PingPong, RowMajor, ColumnMajor, gemm::ClusterShape<2, 1>>)
// fp8 (e4m3 x e4m3, BlockTile K = 128: one 128-byte span) into bf16, and into e4m3 D (TMA stores of 32-byte rows).
using Fp8 = gemm::Config<arch::Sm90, float8_e4m3_t, RowMajor, float8_e4m3_t, ColumnMajor, bfloat16_t, float,
                         gemm::BlockTile<128, 256, 128>, gemm::Warpgroups<2>, gemm::Stages<4>>;
using Fp8D8 = gemm::Config<arch::Sm90, float8_e4m3_t, RowMajor, float8_e4m3_t, ColumnMajor, float8_e4m3_t, float,
                           gemm::BlockTile<128, 256, 128>, gemm::Warpgroups<2>, gemm::Stages<4>>;
TESSERA_INSTANTIATE(Fp8)
TESSERA_INSTANTIATE(Fp8D8)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 256, 2, 4, epilogue::Identity, gemm::Cooperative, ColumnMajor, RowMajor, gemm::ClusterShape<2, 1>>)  // NT
TESSERA_INSTANTIATE(Tn<bfloat16_t, 64, 128, 1, 8>)  // the decode bench's single-consumer configs
TESSERA_INSTANTIATE(Tn<bfloat16_t, 64, 64, 1, 12>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 64, 32, 1, 16>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 32, 2, 8>)  // the decode bench's swap_ab configs
TESSERA_INSTANTIATE(Tn<bfloat16_t, 64, 32, 1, 12>)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 64, 112, 1, 9>)  // N = 112: 16-column epilogue chunks (the decode bench's N = 14336 tiles)
TESSERA_INSTANTIATE(Tn<bfloat16_t, 128, 112, 2, 7>)
