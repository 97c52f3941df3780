// attention::Config's derived choices for the Hopper kernel, pinned: the padded head dimensions,
// the register split, the Q stages (two where they fit beside the rings), whether O leaves
// through the Q stage and TMA, and whether the consumers go from tile to tile without a pause
// (the measured picks of docs/attention.md rely on them).
#include <catch2/catch.hpp>

#include "tessera/attention/config.hpp"
#include "tessera/attention/config_check.hpp"
#include "tessera/attention/masks.hpp"

using namespace tessera;
using namespace tessera::attention;

namespace {
template <class E, int D, int Dv, int BQ, int BKV, int C, int S = 2, class Chain = NoMask>
using Cfg = Config<arch::Sm90, E, HeadDim<D, Dv>, BlockTile<BQ, BKV>, Consumers<C>, Stages<S>, Chain>;
}  // namespace

TEST_CASE("attention Config: padded head dims, registers, Q stages and O's path", "[attention]") {
  using Hd128 = Cfg<bfloat16_t, 128, 128, 128, 128, 2>;  // 128 x 128: Q twice fits, O staged
  STATIC_REQUIRE(Hd128::q_stages == 2);
  STATIC_REQUIRE(Hd128::staged_o);
  STATIC_REQUIRE(Hd128::consumer_registers == 232);
  STATIC_REQUIRE(Hd128::producer_registers == 40);
  using Wide = Cfg<bfloat16_t, 128, 128, 128, 176, 2>;  // 128 x 176: one Q stage, O by the threads, 24 / 240
  STATIC_REQUIRE(Wide::q_stages == 1);
  STATIC_REQUIRE(!Wide::staged_o);
  STATIC_REQUIRE(Wide::consumer_registers == 240);
  STATIC_REQUIRE(Wide::producer_registers == 24);
  using Three = Cfg<bfloat16_t, 64, 64, 192, 128, 3>;  // three consumers: 32 / 160, O by the threads
  STATIC_REQUIRE(Three::consumer_registers == 160);
  STATIC_REQUIRE(Three::producer_registers == 32);
  STATIC_REQUIRE(!Three::staged_o);
  using Hd96 = Cfg<half_t, 96, 96, 128, 128, 2>;  // Q and K padded to 128 columns; V in 32-column spans, P V 96 wide
  STATIC_REQUIRE(Hd96::Dp == 128);
  STATIC_REQUIRE(Hd96::v_span == 32);
  STATIC_REQUIRE(Hd96::Dvp == 96);
  STATIC_REQUIRE(Hd96::staged_o);
  STATIC_REQUIRE(Cfg<bfloat16_t, 200, 200, 128, 64, 2>::Dvp == 224);
  STATIC_REQUIRE(Cfg<bfloat16_t, 40, 40, 128, 128, 2>::Dvp == 64);
  STATIC_REQUIRE(Cfg<bfloat16_t, 128, 128, 128, 128, 2>::v_span == 64);
  // (attention::ConfigSpec, the profiler's, holds V the same way.)
  STATIC_REQUIRE(attention::ConfigSpec{.head_dim = 96, .head_dim_v = 96}.head_dim_v_padded() == 96);
  STATIC_REQUIRE(attention::ConfigSpec{.head_dim = 200, .head_dim_v = 200}.head_dim_v_padded() == 224);
  using Hd256 = Cfg<bfloat16_t, 256, 256, 128, 64, 2>;  // one Q stage at head dim 256
  STATIC_REQUIRE(Hd256::q_stages == 1);
  using Fp8 = Cfg<float8_e4m3_t, 128, 128, 128, 128, 2>;  // 128-column spans, O in bf16, 56 / 224, O by the threads
  STATIC_REQUIRE(Fp8::fp8);
  STATIC_REQUIRE(Fp8::span == 128);
  STATIC_REQUIRE(std::is_same_v<Fp8::Output, bfloat16_t>);
  STATIC_REQUIRE(Fp8::producer_registers == 56);
  STATIC_REQUIRE(!Fp8::staged_o);
  using Mixed = Cfg<bfloat16_t, 64, 128, 128, 128, 2>;  // O wider than Q's stage: by the threads
  STATIC_REQUIRE(!Mixed::staged_o);
  // Every split fits the 64K registers of a block of Config::threads threads.
  STATIC_REQUIRE(Hd128::producer_registers * 128 + Hd128::consumer_registers * 256 <= 65536);
  STATIC_REQUIRE(Wide::producer_registers * 128 + Wide::consumer_registers * 256 <= 65536);
  STATIC_REQUIRE(Three::producer_registers * 128 + Three::consumer_registers * 384 <= 65536);
  STATIC_REQUIRE(Fp8::producer_registers * 128 + Fp8::consumer_registers * 256 <= 65536);
}

TEST_CASE("attention Config: tiles back to back (across_tiles) where they measured faster", "[attention]") {
  using Capped = ScoreChain<Softcap>;
  // One Q stage and blocks of up to 128 keys (head dim 256, 192 / 128, fp8 256), any chain.
  STATIC_REQUIRE(Cfg<bfloat16_t, 256, 256, 128, 64, 2>::across_tiles);
  STATIC_REQUIRE(Cfg<bfloat16_t, 256, 256, 128, 80, 2, 2, Capped>::across_tiles);
  STATIC_REQUIRE(Cfg<bfloat16_t, 192, 128, 128, 128, 2>::across_tiles);
  STATIC_REQUIRE(Cfg<float8_e4m3_t, 256, 256, 128, 128, 2>::across_tiles);
  // Not: two Q stages (the next tile's Q lands early), 128 x 176, three consumers.
  STATIC_REQUIRE(!Cfg<bfloat16_t, 128, 128, 128, 128, 2>::across_tiles);
  STATIC_REQUIRE(!Cfg<float8_e4m3_t, 128, 128, 128, 128, 2>::across_tiles);
  STATIC_REQUIRE(!Cfg<bfloat16_t, 128, 128, 128, 176, 2>::across_tiles);
  using Three = Cfg<bfloat16_t, 192, 64, 192, 64, 3, 4>;  // three consumers with one Q stage
  STATIC_REQUIRE(Three::q_stages == 1);
  STATIC_REQUIRE(!Three::across_tiles);
}
