// The sm90 GEMM (TMA + wgmma, warp-specialized): bf16 and f16 with K-major operands (TN) on the
// standard odd shapes, batched, with every epilogue stage, row- and column-major D; cooperative
// (64- and 128-row tiles, 128 and 256 columns) and ping-pong (persistent) schedules. Operands TMA cannot read (misaligned, rows not 16 bytes
// apart) and unsupported split-K are refused with a message, and nothing is written.
#include "gemm_check.hpp"

namespace {
using namespace tessera;
using test::AllStages;
using test::GemmCase;

template <class E, int BM, int BN, int WG, int S, class Epi = AllStages, class Schedule = gemm::Cooperative>
using Sm90Cfg = gemm::Config<arch::Sm90, E, RowMajor, E, ColumnMajor, E, float, gemm::BlockTile<BM, BN, 64>,
                             gemm::Warpgroups<WG, Schedule>, gemm::Stages<S>, Epi>;
template <class E, int BM, int BN, int S, class Epi = AllStages>
using PingPongCfg = Sm90Cfg<E, BM, BN, 2, S, Epi, gemm::PingPong>;

// The standard cases the sm90 kernel takes: 16-byte aligned operands (TMA), no explicit split-K.
std::vector<GemmCase> sm90_cases() {
  std::vector<GemmCase> out;
  for (auto const& c : test::standard_cases())
    if (c.pad < 0 && c.misalign == 0 && c.split_k <= 1) out.push_back(c);
  // More tiles than two per block of a persistent grid (ring and turn phases wrap many times),
  // one k-tile per tile, and batches spread over blocks.
  if (std::getenv("TESSERA_TEST_SMALL") == nullptr) {
    out.push_back({2304, 2376, 200});
    out.push_back({1100, 2900, 64});
    out.push_back({700, 1300, 130, 3});
  }
  return out;
}

template <class Cfg>
void all_shapes() {
  for (auto const& cs : sm90_cases()) test::GemmCheck<Cfg>::run(cs);
  test::check_every_stage<Cfg>({127, 61, 129});
  test::check_every_stage<Cfg>({40, 72, 64, 2});
}
}  // namespace

TEST_CASE("sm90 GEMM bf16 TN on odd shapes, every epilogue stage", "[gpu][gemm][sm90][bf16]") {
  SECTION("128 x 128 tiles, 2 consumer warpgroups, 4 stages") { all_shapes<Sm90Cfg<bfloat16, 128, 128, 2, 4>>(); }
  SECTION("128 x 256 tiles, 2 consumer warpgroups, 4 stages") {
    for (auto const& cs : sm90_cases()) test::GemmCheck<Sm90Cfg<bfloat16, 128, 256, 2, 4, epilogue::Identity>>::run(cs);
  }
  SECTION("ping-pong, 128 x 128 tiles, 5 stages") { all_shapes<PingPongCfg<bfloat16, 128, 128, 5>>(); }
  SECTION("ping-pong, 64 x 256 tiles, 4 stages") {
    for (auto const& cs : sm90_cases()) test::GemmCheck<PingPongCfg<bfloat16, 64, 256, 4, epilogue::Identity>>::run(cs);
  }
  SECTION("64 x 128 tiles, 1 consumer warpgroup, 2 stages") {
    for (auto const& cs : sm90_cases()) test::GemmCheck<Sm90Cfg<bfloat16, 64, 128, 1, 2, epilogue::Identity>>::run(cs);
  }
}

TEST_CASE("sm90 GEMM f16 TN on odd shapes, every epilogue stage", "[gpu][gemm][sm90][f16]") {
  SECTION("cooperative") { all_shapes<Sm90Cfg<half, 128, 128, 2, 4>>(); }
  SECTION("ping-pong") { all_shapes<PingPongCfg<half, 128, 128, 5>>(); }
}

TEST_CASE("sm90 GEMM refuses operands TMA cannot read, with the fix", "[gpu][gemm][sm90][errors]") {
  tessera::test::require_gpu();
  using Cfg = Sm90Cfg<bfloat16, 128, 128, 2, 4, epilogue::Identity>;
  test::DeviceBuffer<bfloat16> a(64 * 264 + 8), b(64 * 264 + 8), d(64 * 72);
  auto const poison = d.to_host();
  auto args = [&] {
    gemm::Arguments<Cfg> x;
    x.m = x.n = 64;
    x.k = 256;  // 4 k-tiles
    x.a = a.get();
    x.lda = 264;
    x.b = b.get();
    x.ldb = 264;
    x.d = d.get();
    x.ldd = 72;
    return x;
  };
  struct Bad {
    char const* what;
    gemm::Arguments<Cfg> args;
    char const* says;
  };
  auto misaligned = args();
  misaligned.a = a.get() + 1;
  auto odd_ld = args();
  odd_ld.ldb = 260;  // 520 bytes
  auto split = args();
  split.split_k = 2;
  for (auto const& bad : {Bad{"A one element past 16 bytes", misaligned, "16-byte aligned address; align A"},
                          Bad{"ldb of 260 bf16", odd_ld, "pad the leading dimension"},
                          Bad{"split_k = 2", split, "does not split K yet"}}) {
    INFO(bad.what);
    Status const s = gemm::Gemm<Cfg>{}.run(bad.args);
    INFO(s.message());
    CHECK_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains(bad.says));
  }
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const after = d.to_host();
  CHECK(std::memcmp(after.data(), poison.data(), after.size() * sizeof(bfloat16)) == 0);  // nothing written
}
