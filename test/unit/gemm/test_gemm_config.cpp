// gemm::Config on the host: derived sizes, which operands are K-major, the atom chosen for each
// type pair, and the first failing check of bad configurations (their messages are pinned by the
// compile-fail tests; here, that the configurations the library uses pass them).
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/gemm/config.hpp"
#include "tessera/gemm/config_of.hpp"

using namespace tessera;

namespace {
template <class LA, class LB, class E = bfloat16_t, class D = bfloat16_t, class Acc = float, int BM = 128, int BN = 256,
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
  STATIC_REQUIRE(std::is_void_v<gemm::Sm80Mma<bfloat16_t, half_t, float>::type>);  // no mixed-input atom
  STATIC_REQUIRE(std::is_same_v<gemm::Sm80Mma<tessera::half_t, tessera::half_t, float>::type, arch::Sm80_16x8x16_F32F16F16F32_TN>);
  // The smallest pipelines the benches and tests use still hold the epilogue's staging.
  STATIC_REQUIRE(Cfg<RowMajor, ColumnMajor, bfloat16_t, bfloat16_t, float, 128, 128, 32, 2, 2, 4>::error == gemm::ConfigError::kNone);
  STATIC_REQUIRE(Cfg<RowMajor, ColumnMajor, float, float, float, 128, 128, 16, 2, 2, 2>::valid);  // tf32: two k-steps of 8
}

namespace {
// A spec of the headline sm90 config, or of the sm80 one, to break one field at a time.
constexpr gemm::ConfigSpec sm90_spec() {
  gemm::ConfigSpec s;
  s.arch_cc = 90;
  s.a = s.b = s.d = gemm::Dtype::kBf16;
  s.bm = 128;
  s.bn = 256;
  s.bk = 64;
  s.consumers = 2;
  s.stages = 4;
  return s;
}
constexpr gemm::ConfigSpec sm80_spec() {
  gemm::ConfigSpec s;
  s.arch_cc = 80;
  s.a = s.b = s.d = gemm::Dtype::kBf16;
  s.bm = 128;
  s.bn = 128;
  s.bk = 32;
  s.warps_m = s.warps_n = 2;
  s.stages = 4;
  return s;
}
template <class F>
constexpr gemm::ConfigError broken(gemm::ConfigSpec s, F f) {
  f(s);
  return gemm::check(s);
}
}  // namespace

TEST_CASE("gemm::check on plain specs agrees with gemm::Config", "[gemm][config]") {
  using gemm::ConfigError;
  // Configs the library ships: the spec a Config derives checks valid, with the same sizes.
  using Sm90 = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float, gemm::BlockTile<128, 256, 64>,
                            gemm::Warpgroups<2>, gemm::Stages<4>>;
  using Sm90PingPong = gemm::Config<arch::Sm90, half_t, ColumnMajor, half_t, RowMajor, float, float, gemm::BlockTile<128, 128, 64>,
                                    gemm::Warpgroups<2, gemm::PingPong>, gemm::Stages<5>>;
  using Fp8 = gemm::Config<arch::Sm90, float8_e5m2_t, RowMajor, float8_e4m3_t, ColumnMajor, float8_e4m3_t, float,
                           gemm::BlockTile<128, 256, 128>, gemm::Warpgroups<2, gemm::Cooperative, gemm::ClusterShape<2, 1>>,
                           gemm::Stages<4>>;
  using Int8 = Cfg<RowMajor, ColumnMajor, std::int8_t, std::int32_t, std::int32_t, 128, 256, 64, 2, 4, 3>;
  STATIC_REQUIRE(gemm::check(Sm90::spec) == ConfigError::kNone);
  STATIC_REQUIRE(gemm::smem_bytes(Sm90::spec) == 4 * (128 + 256) * 64 * 2 + 16 * 4 + 128 * 32 * 2 * 4);
  STATIC_REQUIRE(Sm90PingPong::valid && Sm90PingPong::spec.ping_pong && !Sm90PingPong::spec.a_k_major);
  STATIC_REQUIRE(Sm90PingPong::epilogue_buffers_sm90 == 2);  // float D
  STATIC_REQUIRE(Fp8::valid && Fp8::spec.a == gemm::Dtype::kE5m2 && Fp8::spec.cluster_m == 2);
  STATIC_REQUIRE(Int8::valid && Int8::spec.threads() == 256);
  STATIC_REQUIRE(gemm::check(sm90_spec()) == ConfigError::kNone);
  STATIC_REQUIRE(gemm::check(sm80_spec()) == ConfigError::kNone);

  // The atom table of the spec matches the atoms Sm80Mma picks.
  STATIC_REQUIRE(gemm::sm80_atom(gemm::Dtype::kBf16, gemm::Dtype::kBf16, gemm::Dtype::kF32).k ==
                 atom::MmaTraits<gemm::Sm80Mma<bfloat16_t, bfloat16_t, float>::type>::K);
  STATIC_REQUIRE(gemm::sm80_atom(gemm::Dtype::kF32, gemm::Dtype::kF32, gemm::Dtype::kF32).k ==
                 atom::MmaTraits<gemm::Sm80Mma<float, float, float>::type>::K);
  STATIC_REQUIRE(gemm::sm80_atom(gemm::Dtype::kInt8, gemm::Dtype::kInt8, gemm::Dtype::kInt32).k ==
                 atom::MmaTraits<gemm::Sm80Mma<std::int8_t, std::int8_t, std::int32_t>::type>::K);
  STATIC_REQUIRE(gemm::sm80_atom(gemm::Dtype::kBf16, gemm::Dtype::kF16, gemm::Dtype::kF32).m == 0);
  STATIC_REQUIRE(gemm::max_smem_per_block(80) == arch::Sm80::max_smem_per_block);
  STATIC_REQUIRE(gemm::max_smem_per_block(90) == arch::Sm90::max_smem_per_block);

  // Each check, one broken field at a time (the compile-fail tests pin the same checks through
  // gemm::Config's static_asserts).
  using S = gemm::ConfigSpec;
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.arch_cc = 70; }) == ConfigError::kArch);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.layouts_known = false; }) == ConfigError::kLayoutTags);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.arch_cc = 80; }) == ConfigError::kWarpgroupsArch);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.a = s.b = gemm::Dtype::kE4m3, s.a_k_major = false; }) ==
                 ConfigError::kWarpgroupsLayout);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.a = s.b = gemm::Dtype::kInt8; }) == ConfigError::kWarpgroupsTypes);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.bm = 192; }) == ConfigError::kWarpgroupsTileM);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.bn = 40; }) == ConfigError::kWarpgroupsTileN);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.bn = 112, s.d = gemm::Dtype::kE4m3; }) == ConfigError::kWarpgroupsTileN);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.bn = 112; }) == ConfigError::kNone);  // 16-column epilogue chunks
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.bk = 32; }) == ConfigError::kWarpgroupsTileK);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.stages = 17; }) == ConfigError::kWarpgroupsStages);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.ping_pong = true; }) == ConfigError::kPingPongTile);  // 128 x 256
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.cluster_m = s.cluster_n = 2; }) == ConfigError::kCluster);
  STATIC_REQUIRE(broken(sm90_spec(), [](S& s) { s.stages = 5; }) == ConfigError::kSharedMemory);
  STATIC_REQUIRE(broken(sm80_spec(), [](S& s) { s.b = gemm::Dtype::kF16; }) == ConfigError::kNoAtom);
  STATIC_REQUIRE(broken(sm80_spec(), [](S& s) { s.bm = 72; }) == ConfigError::kTileM);
  STATIC_REQUIRE(broken(sm80_spec(), [](S& s) { s.bn = 72; }) == ConfigError::kTileN);
  STATIC_REQUIRE(broken(sm80_spec(), [](S& s) { s.bk = 24; }) == ConfigError::kTileK);
  STATIC_REQUIRE(broken(sm80_spec(), [](S& s) { s.bk = 48; }) == ConfigError::kTileKSteps);
  STATIC_REQUIRE(broken(sm80_spec(), [](S& s) { s.stages = 6; }) == ConfigError::kStages);
  STATIC_REQUIRE(broken(sm80_spec(), [](S& s) { s.bm = s.bn = 256, s.bk = 64; }) == ConfigError::kSharedMemory);

  // Every error has its message, in the static_assert's form.
  for (int e = int(ConfigError::kArch); e <= int(ConfigError::kCluster); ++e) {
    std::string const message = gemm::config_error_message(ConfigError(e));
    INFO(e << ": " << message);
    CHECK(message.rfind("gemm::Config: ", 0) == 0);
    CHECK(message.find("; ") != std::string::npos);
  }
  CHECK(std::string(gemm::config_error_message(ConfigError::kCluster)) == TESSERA_CONFIG_MSG_CLUSTER);
  CHECK(std::string(gemm::dtype_name(Fp8::spec.b)) == "e4m3");
}

namespace {
// gemm::gfx9_atom (plain values, what the checks use) names the shape of the atom gemm::Gfx9Mma
// picks (what the kernel runs), for each target and type.
template <class Arch, class A, class Acc>
constexpr bool gfx9_atom_agrees() {
  using Op = typename gemm::Gfx9Mma<Arch, A, A, Acc>::type;
  constexpr gemm::AtomShape s = gemm::gfx9_atom(Arch::gfx, gemm::dtype_of<A>, gemm::dtype_of<A>, gemm::dtype_of<Acc>);
  if constexpr (std::is_void_v<Op>) {
    return s.m == 0;
  } else {
    using T = atom::MmaTraits<Op>;
    return s.m == T::M && s.n == T::N && s.k == T::K && std::is_same_v<typename T::ElementA, A> &&
           std::is_same_v<typename T::ElementC, Acc>;
  }
}
}  // namespace

TEST_CASE("AMD Configs: MFMA atoms, wavefronts and the gfx9 checks", "[gemm][config][gfx9]") {
  STATIC_REQUIRE(gfx9_atom_agrees<arch::Gfx90a, half_t, float>());
  STATIC_REQUIRE(gfx9_atom_agrees<arch::Gfx90a, bfloat16_t, float>());
  STATIC_REQUIRE(gfx9_atom_agrees<arch::Gfx90a, float, float>());
  STATIC_REQUIRE(gfx9_atom_agrees<arch::Gfx90a, std::int8_t, std::int32_t>());
  STATIC_REQUIRE(gfx9_atom_agrees<arch::Gfx90a, float8_e4m3_fnuz_t, float>());  // none on gfx90a
  STATIC_REQUIRE(gfx9_atom_agrees<arch::Gfx940, std::int8_t, std::int32_t>());
  STATIC_REQUIRE(gfx9_atom_agrees<arch::Gfx940, float8_e4m3_fnuz_t, float>());
  STATIC_REQUIRE(gfx9_atom_agrees<arch::Gfx940, float8_e5m2_fnuz_t, float>());
  STATIC_REQUIRE(gfx9_atom_agrees<arch::Gfx940, half_t, std::int32_t>());  // none

  using Cfg = gemm::Config<arch::Gfx90a, half_t, RowMajor, half_t, ColumnMajor, half_t, float, gemm::BlockTile<128, 128, 32>,
                           gemm::Warps<2, 2>, gemm::Stages<2>>;
  STATIC_REQUIRE(Cfg::valid && Cfg::amd);
  STATIC_REQUIRE(Cfg::threads == 256);  // four wavefronts of 64
  STATIC_REQUIRE(Cfg::spec.gfx == 0x90a && Cfg::spec.arch_cc == 0);
  STATIC_REQUIRE(Cfg::smem_bytes == 2 * (128 + 128) * 32 * 2);  // two LDS buffers of A and B
  STATIC_REQUIRE(std::is_same_v<Cfg::MmaOp, arch::Gfx9_32x32x8_F32F16F16F32>);
  STATIC_REQUIRE(std::is_same_v<gemm::ConfigOf<Cfg::spec>, Cfg>);

  constexpr gemm::ConfigSpec ok = Cfg::spec;
  auto with = [&](auto change) {
    gemm::ConfigSpec s = ok;
    change(s);
    return gemm::check(s);
  };
  CHECK(gemm::check(ok) == gemm::ConfigError::kNone);
  CHECK(with([](auto& s) { s.gfx = 0x908; }) == gemm::ConfigError::kArch);
  CHECK(with([](auto& s) { s.arch_cc = 80; }) == gemm::ConfigError::kArch);
  CHECK(with([](auto& s) { s.consumers = 2; }) == gemm::ConfigError::kWarpgroupsArch);
  CHECK(with([](auto& s) { s.a = s.b = gemm::Dtype::kE4m3; }) == gemm::ConfigError::kMfmaTypes);
  CHECK(with([](auto& s) { s.warps_m = 8, s.warps_n = 4; }) == gemm::ConfigError::kMfmaWarps);
  CHECK(with([](auto& s) { s.bm = 96; }) == gemm::ConfigError::kMfmaTileM);
  CHECK(with([](auto& s) { s.bn = 48; }) == gemm::ConfigError::kMfmaTileN);
  CHECK(with([](auto& s) { s.bk = 8; }) == gemm::ConfigError::kMfmaTileK);   // 16 bytes: one chunk
  CHECK(with([](auto& s) { s.bk = 48; }) == gemm::ConfigError::kMfmaTileK);  // not a power of two
  CHECK(with([](auto& s) { s.bm = 64, s.bn = 64, s.warps_m = 4, s.warps_n = 4; }) == gemm::ConfigError::kMfmaTileM);
  CHECK(with([](auto& s) { s.bm = 32, s.bn = 32, s.warps_m = 1, s.warps_n = 1, s.bk = 16; }) == gemm::ConfigError::kNone);
  CHECK(with([](auto& s) { s.bm = 64, s.bn = 64, s.bk = 16; }) == gemm::ConfigError::kMfmaCopy);  // 128 vectors, 256 threads
  CHECK(with([](auto& s) { s.stages = 3; }) == gemm::ConfigError::kMfmaStages);
  CHECK(with([](auto& s) { s.bm = 256, s.bn = 256, s.bk = 64, s.warps_m = 4, s.warps_n = 4; }) == gemm::ConfigError::kLds);
  for (auto e : {gemm::ConfigError::kMfmaTypes, gemm::ConfigError::kMfmaWarps, gemm::ConfigError::kMfmaTileM, gemm::ConfigError::kMfmaTileN,
                 gemm::ConfigError::kMfmaTileK, gemm::ConfigError::kMfmaCopy, gemm::ConfigError::kMfmaStages, gemm::ConfigError::kLds}) {
    std::string const m = gemm::config_error_message(e);
    INFO(m);
    CHECK(m.rfind("gemm::Config: ", 0) == 0);
    CHECK(m.find("; ") != std::string::npos);
  }
}
