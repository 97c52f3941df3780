// A binary built for the wrong architecture asks for a GEMM: it gets a Status that names the
// fix, and nothing is launched or written (D keeps its poison). Built twice (test/CMakeLists.txt):
// for sm_90 without the a (an H100 runs that code, which has no wgmma: the sm90 Config is
// refused, the sm80 Config runs), and for sm_100 only (no code for an H100 at all: both refused).
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "../device/gemm/gemm_check.hpp"

using namespace tessera;

namespace {
using Sm90 = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float, gemm::BlockTile<128, 128, 64>,
                          gemm::Warpgroups<2>, gemm::Stages<4>>;
using Sm80 = gemm::Config<arch::Sm80, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float, gemm::BlockTile<128, 128, 32>,
                          gemm::Warps<2, 2>, gemm::Stages<3>>;

// Runs a 64 x 64 x 64 GEMM of Cfg on ones: the Status of can_implement and of run, and whether D
// was written (64 everywhere) or kept its poison.
struct Outcome {
  bool check_ok = false, run_ok = false;
  std::string check, run;  // the messages
  bool written = false, poisoned = false;
};
template <class Cfg>
Outcome try_gemm() {
  test::require_gpu();
  std::vector<bfloat16_t> ones(64 * 64, bfloat16_t(1.0f));
  test::DeviceBuffer<bfloat16_t> a(ones), b(ones), d(64 * 64);
  auto const poison = d.to_host();
  gemm::Arguments<Cfg> const args = test::args_64<Cfg>(a, b, d);
  Outcome out;
  Status const check = gemm::Gemm<Cfg>::can_implement(args);
  Status const run = gemm::Gemm<Cfg>{}.run(args);
  out.check_ok = check.ok();
  out.check = check.message();
  out.run_ok = run.ok();
  out.run = run.message();
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const after = d.to_host();
  out.poisoned = std::memcmp(after.data(), poison.data(), after.size() * sizeof(bfloat16_t)) == 0;
  out.written = true;
  for (auto const& x : after) out.written = out.written && x.to_float() == 64.0f;
  return out;
}
}  // namespace

#if TESSERA_TEST_BUILT_FOR == 90
TEST_CASE("a binary built for sm_90 (not sm_90a) refuses the sm90 GEMM with the fix", "[gpu][gemm][arch]") {
  auto const o = try_gemm<Sm90>();
  INFO(o.check);
  CHECK_FALSE(o.check_ok);
  CHECK_THAT(o.check, Catch::Contains("sm_90a") && Catch::Contains("CMAKE_CUDA_ARCHITECTURES=90a"));
  CHECK_FALSE(o.run_ok);
  CHECK(o.run == o.check);
  CHECK(o.poisoned);
}

TEST_CASE("a binary built for sm_90 runs the sm80 GEMM", "[gpu][gemm][arch]") {
  auto const o = try_gemm<Sm80>();
  INFO(o.run);
  CHECK(o.check_ok);
  CHECK(o.run_ok);
  CHECK(o.written);
}
#else
TEST_CASE("a binary without code for the GPU refuses both GEMMs with the fix", "[gpu][gemm][arch]") {
  auto const sm90 = try_gemm<Sm90>();
  INFO(sm90.check);
  CHECK_FALSE(sm90.check_ok);
  CHECK_THAT(sm90.check, Catch::Contains("holds no code") && Catch::Contains("CMAKE_CUDA_ARCHITECTURES=90a"));
  CHECK(sm90.poisoned);
  auto const sm80 = try_gemm<Sm80>();
  INFO(sm80.check);
  CHECK_FALSE(sm80.check_ok);
  CHECK_THAT(sm80.check, Catch::Contains("holds no code") && Catch::Contains("CMAKE_CUDA_ARCHITECTURES"));
  CHECK_FALSE(sm80.run_ok);
  CHECK(sm80.poisoned);
}
#endif
