// The narrow types' names do not collide with CUDA's: a program that includes cuda_fp16.h and
// cuda_bf16.h and says `using namespace tessera` names both libraries' types without ambiguity
// (before the _t names, `half` was both tessera::half and CUDA's global half).
#include <catch2/catch.hpp>
#include <type_traits>

#if defined(TESSERA_TEST_CUDA_HEADERS)
#  include <cuda_bf16.h>
#  include <cuda_fp16.h>
#endif
#include "tessera/core/numeric_types.hpp"

using namespace tessera;

TEST_CASE("the narrow types' names do not collide with CUDA's under using namespace tessera", "[core][numeric]") {
#if defined(TESSERA_TEST_CUDA_HEADERS)
  STATIC_REQUIRE(std::is_same_v<half, __half>);                // CUDA's half, unambiguous
  STATIC_REQUIRE(std::is_same_v<nv_bfloat16, __nv_bfloat16>);  // and its bfloat16
  half const cuda_half = __float2half(1.5f);
  CHECK(__half2float(cuda_half) == 1.5f);
#endif
  // Tessera's, each name ending in _t; the old names without it stay where nothing else has them.
  STATIC_REQUIRE(std::is_same_v<bfloat16, bfloat16_t>);
  STATIC_REQUIRE(std::is_same_v<float8_e4m3, float8_e4m3_t>);
  STATIC_REQUIRE(std::is_same_v<float8_e5m2, float8_e5m2_t>);
  CHECK(float(half_t(1.5f)) == 1.5f);
  CHECK(float(bfloat16_t(1.5f)) == 1.5f);
  CHECK(float(float8_e4m3_t(1.5f)) == 1.5f);
}
