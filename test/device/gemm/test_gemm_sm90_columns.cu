// The sm90 GEMM's staged column vectors (epilogue/chain.hpp): a per-column bias, scale or shift is
// loaded once per tile into shared memory and read there by the interior tiles' chain. Checked
// against the host reference on shapes with interior tiles (the staged path) and edge tiles (the
// global path), with many tiles per block (the copy is rewritten tile after tile), column-major D
// (no TMA store, so no epilogue barrier of its own), split-K and swap_ab (not staged). Every
// stage with the vectors staged (tiles of fewer than 128 columns, ping-pong, clusters) and a
// Config without room for the copy are tested in test_gemm_sm90.cu, on the kernels it builds.
#include "sm90_check.hpp"

using namespace tessera;
using namespace tessera::test::sm90;

namespace {
namespace ep = tessera::epilogue;
// The bench's fused epilogue: a bf16 per-column bias, then GELU.
using BiasGelu = ep::Chain<ep::Bias<ep::PerColumn, bfloat16_t>, ep::GeluTanh>;
using BiasGeluCfg = Sm90Cfg<bfloat16_t, 128, 256, 2, 4, BiasGelu>;

template <class Cfg>
constexpr bool staged = gemm::sm90::Epilogue<Cfg>::stage_columns;

std::vector<bfloat16_t> random_bias(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<bfloat16_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = bfloat16_t(tessera::test::random_value<float>(rng));
  return v;
}
}  // namespace

// Which Configs stage: where the copies fit beside the stages, the staging buffers and barriers.
TEST_CASE("sm90 GEMM stages the epilogue's column vectors where shared memory allows", "[gemm][sm90][columns]") {
  STATIC_REQUIRE(staged<BiasGeluCfg>);  // 2 consumers x 1 vector x 256 floats: 231,488 bytes in all
  STATIC_REQUIRE(BiasGeluCfg::smem_bytes == gemm::smem_bytes(BiasGeluCfg::spec) + 2 * 256 * 4);
  STATIC_REQUIRE(staged<Sm90Cfg<bfloat16_t, 128, 128, 2, 4>>);     // AllStages: 3 vectors
  STATIC_REQUIRE(staged<PingPongCfg<bfloat16_t, 128, 128, 4>>);
  STATIC_REQUIRE(!staged<PingPongCfg<bfloat16_t, 128, 128, 5>>);    // 96 bytes short for AllStages' 3 KB
  STATIC_REQUIRE(!staged<PingPongCfg<half_t, 128, 128, 5>>);
  STATIC_REQUIRE(!staged<Sm90Cfg<bfloat16_t, 128, 256, 2, 4>>);    // AllStages' 6 KB do not fit beside 4 stages
  STATIC_REQUIRE(Sm90Cfg<bfloat16_t, 128, 256, 2, 4>::smem_bytes == gemm::smem_bytes(Sm90Cfg<bfloat16_t, 128, 256, 2, 4>::spec));
  STATIC_REQUIRE(!staged<Sm90Cfg<bfloat16_t, 128, 256, 2, 4, ep::Identity>>);  // no vectors
  STATIC_REQUIRE(!staged<Sm90Cfg<bfloat16_t, 128, 256, 2, 4, ep::Chain<ep::Bias<ep::PerRow, bfloat16_t>>>>);
}

TEST_CASE("sm90 GEMM bias + GELU with the bias staged, on interior and edge tiles", "[gpu][gemm][sm90][columns]") {
  std::vector<tessera::test::GemmCase> cases = {
      {1000, 1000, 1000},  // interior and edge tiles
      {300, 600, 100, 1, 1, -1, 0, gemm::StorageOrder::kColumnMajor},  // D stored by the threads
      {300, 600, 100, 1, 1, -1, 0, gemm::StorageOrder::kRowMajor, 3},  // odd ldd: D without TMA, row-major
      {512, 1024, 1000, 2, 3},                                         // split-K, batched
      {600, 520, 200, 1, 1, -1, 0, gemm::StorageOrder::kRowMajor, -2, true},  // swap_ab: not staged
  };
  if (std::getenv("TESSERA_TEST_SMALL") == nullptr) cases.push_back({2304, 2376, 200});  // ~5 tiles per block
  for (auto const& cs : cases) {
    // The vector spans D's columns (N; swap_ab keeps D's coordinates).
    auto const bias = random_bias(cs.n, 5);
    tessera::test::DeviceBuffer<bfloat16_t> d_bias(bias);
    tessera::test::GemmCheck<BiasGeluCfg>::run(cs, BiasGelu{{d_bias.get()}, {}}, BiasGelu{{bias.data()}, {}}, 11);
  }
}
