// The sm90 GEMM's staged source matrix (epilogue/chain.hpp): a 16-bit residual (ResidualAdd) or C
// (LinearCombination's beta) of a 16-bit D is copied a tile's block at a time into the staging
// buffers and read back in the accumulators' layout by the interior tiles' chain; edge tiles,
// swap_ab, a source whose rows are not 16-byte aligned and beta = 0 read it element by element.
// Checked against the host reference with the per-column bias staged or not, many tiles per block
// (the buffers reused tile after tile), split-K, batches, column-major D (no TMA store), ping-pong
// (two row halves a consumer), a cluster, and an Optional residual enabled and disabled.
#include "sm90_check.hpp"

using namespace tessera;
using namespace tessera::test::sm90;

namespace {
namespace ep = tessera::epilogue;
// The ResNet block's epilogue (a bias, the shortcut, ReLU), and C's linear combination.
template <class E>
using Block = ep::Chain<ep::Bias<ep::PerColumn, E>, ep::ResidualAdd<E>, ep::Relu>;
template <class E>
using Beta = ep::Chain<ep::LinearCombination<E>>;

template <class Cfg>
constexpr bool sourced = gemm::sm90::Epilogue<Cfg>::sourced;

template <class E>
std::vector<E> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<E> v(n);
  for (auto& x : v) x = E(tessera::test::random_value<float>(rng));
  return v;
}

// The cases: ld is the source's row stride (n + pad); batch entries m * ld apart.
struct SourceCase {
  tessera::test::GemmCase gemm;
  int pad = 0;
};

std::vector<SourceCase> source_cases() {
  using tessera::test::GemmCase;
  std::vector<SourceCase> out = {
      {{1000, 1000, 1000}},                                                  // interior and edge tiles
      {{256, 512, 64}},                                                       // one k-tile: all epilogue
      {{512, 1024, 1000, 2, 3}},                                              // split-K, batched
      {{300, 600, 100, 1, 1, -1, 0, gemm::StorageOrder::kColumnMajor}},       // D stored by the threads
      {{600, 520, 200, 1, 1, -1, 0, gemm::StorageOrder::kRowMajor, -2, true}},  // swap_ab: not staged
      {{384, 512, 128}, 8},                                                   // rows 16-byte aligned, padded
      {{384, 512, 128}, 3},                                                   // rows not aligned: not staged
      {{200, 264, 72, 3}, 0},                                                 // batch entries 200 x 264 apart
  };
  if (std::getenv("TESSERA_TEST_SMALL") == nullptr) out.push_back({{2304, 2376, 200}});  // ~5 tiles per block
  return out;
}

template <class Cfg>
void check_block() {
  using E = typename Cfg::ElementD;
  STATIC_REQUIRE(sourced<Cfg>);
  for (auto const& sc : source_cases()) {
    auto const& cs = sc.gemm;
    std::int64_t const ld = cs.n + sc.pad, entry = std::int64_t(cs.m) * ld;
    auto const bias = random_values<E>(std::size_t(cs.n), 5);
    auto const residual = random_values<E>(std::size_t(entry * cs.batch), 6);
    tessera::test::DeviceBuffer<E> d_bias(bias), d_residual(residual);
    Block<E> const dev = Block<E>::make(d_bias.get(), ep::MatrixRef<E>::row_major(d_residual.get(), ld, entry));
    Block<E> const host = Block<E>::make(bias.data(), ep::MatrixRef<E>::row_major(residual.data(), ld, entry));
    INFO("source pad " << sc.pad);
    tessera::test::GemmCheck<Cfg>::run(cs, dev, host, 11);
  }
}

// An Optional residual (staged when enabled; when disabled, its null source is not read).
template <class E>
using OptionalBlock = ep::Chain<ep::Optional<ep::ResidualAdd<E>>, ep::Relu>;
template <class Cfg>
void check_optional(bool enabled) {
  using E = typename Cfg::ElementD;
  STATIC_REQUIRE(sourced<Cfg>);
  for (auto const& sc : source_cases()) {
    auto const& cs = sc.gemm;
    std::int64_t const ld = cs.n + sc.pad, entry = std::int64_t(cs.m) * ld;
    auto const residual = random_values<E>(std::size_t(entry * cs.batch), 6);
    tessera::test::DeviceBuffer<E> d_residual(residual);
    OptionalBlock<E> const dev{{{ep::MatrixRef<E>::row_major(d_residual.get(), ld, entry)}, enabled}, {}};
    OptionalBlock<E> const host{{{ep::MatrixRef<E>::row_major(residual.data(), ld, entry)}, enabled}, {}};
    INFO("source pad " << sc.pad << ", enabled " << enabled);
    tessera::test::GemmCheck<Cfg>::run(cs, dev, host, 17);
  }
}

template <class Cfg>
void check_beta(float beta) {
  using E = typename Cfg::ElementD;
  for (auto const& sc : source_cases()) {
    auto const& cs = sc.gemm;
    std::int64_t const ld = cs.n + sc.pad, entry = std::int64_t(cs.m) * ld;
    auto const c = random_values<E>(std::size_t(entry * cs.batch), 7);
    tessera::test::DeviceBuffer<E> d_c(c);
    Beta<E> const dev{{0.75f, beta, ep::MatrixRef<E>::row_major(d_c.get(), ld, entry)}};
    Beta<E> const host{{0.75f, beta, ep::MatrixRef<E>::row_major(c.data(), ld, entry)}};
    INFO("source pad " << sc.pad << ", beta " << beta);
    tessera::test::GemmCheck<Cfg>::run(cs, dev, host, 13);
  }
}
}  // namespace

TEST_CASE("sm90 GEMM stages a 16-bit source matrix of a 16-bit D only", "[gemm][sm90][source]") {
  STATIC_REQUIRE(sourced<Sm90Cfg<bfloat16_t, 128, 256, 2, 4, Block<bfloat16_t>>>);
  STATIC_REQUIRE(sourced<Sm90Cfg<half_t, 128, 128, 2, 4, Beta<half_t>>>);
  STATIC_REQUIRE(!sourced<Sm90Cfg<bfloat16_t, 128, 128, 2, 4, ep::Chain<ep::ResidualAdd<float>>>>);  // a float source
  STATIC_REQUIRE(sourced<Sm90Cfg<bfloat16_t, 128, 128, 2, 4, ep::Chain<ep::Optional<ep::ResidualAdd<bfloat16_t>>>>>);
  STATIC_REQUIRE(!sourced<Sm90Cfg<bfloat16_t, 128, 128, 2, 4>>);  // AllStages: float, optional
}

TEST_CASE("sm90 GEMM bias + residual + ReLU with the residual staged", "[gpu][gemm][sm90][source]") {
  check_block<Sm90Cfg<bfloat16_t, 128, 256, 2, 4, Block<bfloat16_t>>>();  // bias staged too
  check_block<PingPongCfg<half_t, 128, 128, 4, Block<half_t>>>();         // two row halves a consumer
  check_block<ClusterCfg<bfloat16_t, 128, 128, 4, 2, 1, Block<bfloat16_t>>>();
}

TEST_CASE("sm90 GEMM an Optional residual: staged when enabled, not read when disabled", "[gpu][gemm][sm90][source]") {
  check_optional<Sm90Cfg<bfloat16_t, 128, 256, 2, 4, OptionalBlock<bfloat16_t>>>(true);
  check_optional<Sm90Cfg<bfloat16_t, 128, 256, 2, 4, OptionalBlock<bfloat16_t>>>(false);
}

TEST_CASE("sm90 GEMM alpha acc + beta C with C staged, and beta = 0 (C not read)", "[gpu][gemm][sm90][source]") {
  using Cfg = Sm90Cfg<bfloat16_t, 128, 128, 2, 4, Beta<bfloat16_t>>;
  check_beta<Cfg>(-0.5f);
  check_beta<Cfg>(0.0f);
  check_beta<Sm90Cfg<half_t, 64, 256, 1, 4, Beta<half_t>>>(1.0f);  // one consumer
}
