// gemm::Config on the host: derived sizes, which operands are K-major, the atom chosen for each
// type pair, and the first failing check of bad configurations (their messages are pinned by the
// compile-fail tests; here, that the configurations the library uses pass them).
#include <catch2/catch.hpp>

#include <cstdint>
#include <type_traits>

#include "tessera/gemm/config.hpp"

using namespace tessera;

namespace {
template <class LA, class LB, class E = bfloat16, class D = bfloat16, class Acc = float, int BM = 128, int BN = 256,
          int BK = 64, int WM = 2, int WN = 4, int S = 3>
using Cfg = gemm::Config<arch::Sm80, E, LA, E, LB, D, Acc, gemm::BlockTile<BM, BN, BK>, gemm::Warps<WM, WN>, gemm::Stages<S>>;
}  // namespace

TEST_CASE("gemm::Config derives its sizes and operand orders", "[gemm][config]") {
  using TN = Cfg<RowMajor, ColumnMajor>;
  STATIC_REQUIRE(TN::valid);
  STATIC_REQUIRE(TN::threads == 256);
  STATIC_REQUIRE(TN::smem_bytes == 3 * (128 * 64 + 256 * 64) * 2);
  STATIC_REQUIRE(TN::a_k_major);
  STATIC_REQUIRE(TN::b_k_major);
  using NT = Cfg<ColumnMajor, RowMajor>;
  STATIC_REQUIRE(!NT::a_k_major);
  STATIC_REQUIRE(!NT::b_k_major);
  STATIC_REQUIRE(std::is_same_v<TN::MmaOp, arch::Sm80_16x8x16_F32BF16BF16F32_TN>);
  STATIC_REQUIRE(std::is_same_v<Cfg<RowMajor, ColumnMajor, float, float, float, 128, 256, 32>::MmaOp,
                                arch::Sm80_16x8x8_F32TF32TF32F32_TN>);
  STATIC_REQUIRE(std::is_same_v<Cfg<RowMajor, ColumnMajor, std::int8_t, std::int32_t, std::int32_t>::MmaOp,
                                arch::Sm80_16x8x32_S32S8S8S32_TN>);
  STATIC_REQUIRE(std::is_void_v<gemm::Sm80Mma<bfloat16, half, float>::type>);  // no mixed-input atom
  STATIC_REQUIRE(std::is_same_v<gemm::Sm80Mma<tessera::half, tessera::half, float>::type, arch::Sm80_16x8x16_F32F16F16F32_TN>);
  // The smallest pipelines the benches and tests use still hold the epilogue's staging.
  STATIC_REQUIRE(Cfg<RowMajor, ColumnMajor, bfloat16, bfloat16, float, 128, 128, 32, 2, 2, 4>::error == gemm::ConfigError::kNone);
  STATIC_REQUIRE(Cfg<RowMajor, ColumnMajor, float, float, float, 128, 128, 16, 2, 2, 2>::valid);  // tf32: two k-steps of 8
}
