// The sm90 GEMM with fp8 operands (wgmma k32, BlockTile K = 128: one 128-byte swizzle span of
// K): e4m3 x e4m3 and e5m2 x e4m3 into bf16 D on the standard odd shapes (split-K included), every
// epilogue stage on one configuration, ping-pong; e4m3 D with per-tensor scales for A, B and D
// and the amax output, bf16 D with scales around every epilogue stage; scales refused by the sm80
// kernel with the fix.
#include "fuzz.hpp"
#include "sm90_check.hpp"

using namespace tessera;
using namespace tessera::test::sm90;
using tessera::test::AllStages;
using tessera::test::GemmCheck;
using tessera::test::Scales;

namespace {
template <class EA, class EB, class ED, int BM, int BN, int S, class Epi = epilogue::Identity, class Schedule = gemm::Cooperative>
using Fp8Cfg = gemm::Config<arch::Sm90, EA, RowMajor, EB, ColumnMajor, ED, float, gemm::BlockTile<BM, BN, 128>,
                            gemm::Warpgroups<2, Schedule>, gemm::Stages<S>, Epi>;
}  // namespace

TEST_CASE("sm90 GEMM fp8 TN into bf16 on odd shapes", "[gpu][gemm][sm90][fp8]") {
  SECTION("e4m3 x e4m3, 128 x 128 tiles, every epilogue stage") {
    all_shapes<Fp8Cfg<float8_e4m3_t, float8_e4m3_t, bfloat16_t, 128, 128, 4, AllStages>>();
  }
  SECTION("e4m3 x e4m3, 128 x 256 tiles") {
    for (auto const& cs : sm90_cases()) GemmCheck<Fp8Cfg<float8_e4m3_t, float8_e4m3_t, bfloat16_t, 128, 256, 4>>::run(cs);
  }
  SECTION("e5m2 x e4m3, ping-pong 128 x 128 tiles") {
    using Cfg = Fp8Cfg<float8_e5m2_t, float8_e4m3_t, bfloat16_t, 128, 128, 4, epilogue::Identity, gemm::PingPong>;
    for (auto const& cs : sm90_cases()) GemmCheck<Cfg>::run(cs);
  }
}

TEST_CASE("sm90 GEMM fp8 with per-tensor scales and amax", "[gpu][gemm][sm90][fp8]") {
  Scales const sc{true, 0.5f, 4.0f, 0.125f, true};
  SECTION("e4m3 D (saturating)") {
    using Cfg = Fp8Cfg<float8_e4m3_t, float8_e4m3_t, float8_e4m3_t, 128, 256, 4>;
    for (auto const& cs : sm90_cases()) GemmCheck<Cfg>::run(cs, {}, {}, 1, 0.0, sc);
  }
  SECTION("bf16 D, scales with every epilogue stage, on tiles inside D and at its edges") {
    using Cfg = Fp8Cfg<float8_e4m3_t, float8_e4m3_t, bfloat16_t, 128, 128, 4, AllStages>;
    tessera::test::check_every_stage<Cfg>({300, 400, 256}, Scales{true, 2.0f, 0.25f, 1.0f, false});
    tessera::test::check_every_stage<Cfg>({300, 400, 256}, Scales{true, 0.5f, 2.0f, 4.0f, false});
  }
  SECTION("bf16 D, scales without amax") {
    using Cfg = Fp8Cfg<float8_e4m3_t, float8_e4m3_t, bfloat16_t, 128, 128, 4>;
    GemmCheck<Cfg>::run({127, 61, 129}, {}, {}, 1, 0.0, Scales{true, 2.0f, 0.25f, 8.0f, false});
    GemmCheck<Cfg>::run({300, 400, 777, 3, 5}, {}, {}, 2, 0.0, sc);  // split-K: only the last slice counts amax
  }
}

TEST_CASE("scales and amax are refused by the sm80 kernel", "[gpu][gemm][sm90][fp8][errors]") {
  tessera::test::require_gpu();
  using Cfg = gemm::Config<arch::Sm80, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float, gemm::BlockTile<128, 128, 32>,
                           gemm::Warps<2, 2>, gemm::Stages<4>>;
  test::DeviceBuffer<bfloat16_t> a(64 * 64), b(64 * 64), d(64 * 64);
  test::DeviceBuffer<float> scale(std::vector<float>{2.0f});
  gemm::Arguments<Cfg> args = test::args_64<Cfg>(a, b, d);
  args.scale_a = scale.get();
  Status const s = gemm::Gemm<Cfg>::can_implement(args);
  INFO(s.message());
  CHECK_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("LinearCombination"));
}

// The fuzz (fuzz.hpp): fp8 operands into bf16 and e4m3 D, random scales and amax.
TEST_CASE("sm90 GEMM fp8 fuzz", "[gpu][gemm][sm90][fp8][fuzz]") {
  using tessera::test::fuzz;
  fuzz<Fp8Cfg<float8_e4m3_t, float8_e4m3_t, bfloat16_t, 128, 128, 4, AllStages>>("sm90.e4m3.tn.128x128.all_stages", 200);
  fuzz<Fp8Cfg<float8_e4m3_t, float8_e4m3_t, bfloat16_t, 128, 256, 4>>("sm90.e4m3.tn.128x256", 100);
  fuzz<Fp8Cfg<float8_e5m2_t, float8_e4m3_t, bfloat16_t, 128, 128, 4, epilogue::Identity, gemm::PingPong>>("sm90.e5m2xe4m3.pingpong", 100);
  fuzz<Fp8Cfg<float8_e4m3_t, float8_e4m3_t, float8_e4m3_t, 128, 256, 4>>("sm90.e4m3.tn.e4m3_d", 100);
}
