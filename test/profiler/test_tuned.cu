// gemm::Tuned over a header `tessera-profile emit` wrote at build time (from sample_profile.json):
// the header compiles in a plain CUDA translation unit; on a GPU, each problem runs with the
// nearest entry that can implement it (swap_ab entries included) and matches a host reference,
// with the plain and a fused epilogue.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "../device/support/device_check.hpp"
#include "../device/support/graph_replay.hpp"
#include "tessera/epilogue/tensor_stages.hpp"
#include "tessera_tuned_sample.hpp"  // generated: namespace tessera_tuned_sample { bf16_tn, f16_tn_bias_gelu }

using namespace tessera;

namespace {

// The arguments of a tight bf16 tn problem (row-major A, column-major B, row-major D), split_k
// left to the table.
template <class G>
typename G::Arguments tn_arguments(int m, int n, int k, bfloat16_t const* a, bfloat16_t const* b, bfloat16_t* d) {
  typename G::Arguments args{};
  args.m = m;
  args.n = n;
  args.k = k;
  args.a = a;
  args.lda = k;
  args.b = b;
  args.ldb = k;
  args.d = d;
  args.ldd = n;
  args.split_k = 0;
  return args;
}

// D = A B (+ bias) for bf16 tn on random data; returns the worst |error| / tolerance.
template <class G>
double check(int m, int n, int k, int expect_entry, bool with_bias) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> v(-7, 7);
  auto value = [&] { int x = v(rng); return bfloat16_t(float(x == 0 ? 1 : x) / 8.0f); };
  std::vector<bfloat16_t> a(std::size_t(m) * k), b(std::size_t(n) * k), bias(static_cast<std::size_t>(n));
  for (auto& x : a) x = value();
  for (auto& x : b) x = value();
  for (auto& x : bias) x = value();
  test::DeviceBuffer<bfloat16_t> da(a), db(b), dbias(bias), dd(std::size_t(m) * n);  // D poisoned
  typename G::Arguments args = tn_arguments<G>(m, n, k, da.get(), db.get(), dd.get());
  if constexpr (!std::is_same_v<decltype(args.epilogue), epilogue::Identity>) args.epilogue = {{dbias.get()}};
  REQUIRE(G::select(args) == expect_entry);
  std::size_t const bytes = G::workspace_size(args);
  test::DeviceBuffer<char> ws(bytes > 0 ? bytes : 1);
  Status const s = G::run(args, bytes > 0 ? ws.get() : nullptr);
  INFO(s.message());
  REQUIRE(s.ok());
  auto const d = dd.to_host();
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0, mag = 0;
      for (int kk = 0; kk < k; ++kk) {
        double const p = double(a[std::size_t(i) * k + kk].to_float()) * b[std::size_t(j) * k + kk].to_float();
        acc += p;
        mag += std::fabs(p);
      }
      if (with_bias) acc += bias[std::size_t(j)].to_float();
      double const want = bfloat16_t(float(acc)).to_float(), have = d[std::size_t(i) * n + j].to_float();
      worst = std::max(worst, std::fabs(have - want) / (std::ldexp(1.0, -7) * std::fabs(want) + std::ldexp(1.0, -20) * mag + 1e-6));
    }
  return worst;
}

}  // namespace

// The tables hold what the sample's winners were: bf16 tn at M = 1 (swapped 64 x 128), 128 and 4096.
static_assert(tessera_tuned_sample::bf16_tn.size == 3 && tessera_tuned_sample::f16_tn_bias_gelu.size == 1);
static_assert(tessera_tuned_sample::bf16_tn.entries[0].m == 1 && tessera_tuned_sample::bf16_tn.entries[0].swap_ab);
static_assert(tessera_tuned_sample::bf16_tn.entries[2].spec == gemm::ConfigSpec{.arch_cc = 90, .a = gemm::Dtype::kBf16,
                  .b = gemm::Dtype::kBf16, .d = gemm::Dtype::kBf16, .bm = 128, .bn = 256, .bk = 64, .consumers = 2, .stages = 4});

TEST_CASE("Tuned dispatches each problem to the nearest entry and computes it", "[tuned][gpu]") {
  test::require_gpu();
  using Plain = gemm::Tuned<tessera_tuned_sample::bf16_tn>;
  CHECK(check<Plain>(2, 384, 256, 0, false) <= 1.0);      // nearest (1, 4096, 4096): the swapped entry
  CHECK(check<Plain>(100, 200, 320, 1, false) <= 1.0);    // nearest (128, 4096, 4096)
  CHECK(check<Plain>(2500, 384, 256, 2, false) <= 1.0);   // nearest (4096, 4096, 4096)
  using Biased = gemm::Tuned<tessera_tuned_sample::bf16_tn, epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>>>;
  CHECK(check<Biased>(127, 130, 72, 1, true) <= 1.0);  // (K = 72: rows of A and B 16-byte aligned, as TMA needs)
}

// An entry's L2 hints apply where the caller left kAuto; the caller's own hints stay. A 64 x 112
// entry (16-column epilogue chunks) runs aligned and unaligned N through the table.
using N112 = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float, gemm::BlockTile<64, 112, 64>,
                          gemm::Warpgroups<1>, gemm::Stages<9>>;
inline constexpr gemm::TunedTable<1> hinted{
    {gemm::TunedEntry{64, 14336, 14336, N112::spec, false, 151.2, gemm::L2Hint::kAuto, gemm::L2Hint::kNormal}}};

TEST_CASE("Tuned applies an entry's L2 hints where the caller left them automatic", "[tuned]") {
  using H = gemm::Tuned<hinted>;
  H::Arguments args{};
  CHECK(H::entry_arguments<0>(args).l2_hint_b == gemm::L2Hint::kNormal);
  CHECK(H::entry_arguments<0>(args).l2_hint_a == gemm::L2Hint::kAuto);
  args.l2_hint_b = gemm::L2Hint::kEvictFirst;
  CHECK(H::entry_arguments<0>(args).l2_hint_b == gemm::L2Hint::kEvictFirst);
}

// An entry's K split applies where the caller asked for the automatic one (split_k = 0); a
// caller's own split stays, and an entry without one (0) leaves the automatic choice.
using Split = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float, gemm::BlockTile<128, 64, 64>,
                           gemm::Warpgroups<2>, gemm::Stages<8>>;
inline constexpr gemm::TunedTable<2> split{{gemm::TunedEntry{128, 4096, 4096, Split::spec, false, 21.8, gemm::L2Hint::kAuto,
                                                             gemm::L2Hint::kAuto, 1},
                                            gemm::TunedEntry{128, 4096, 14336, Split::spec, false, 56.2}}};

TEST_CASE("Tuned applies an entry's K split where the caller left it automatic", "[tuned]") {
  using S = gemm::Tuned<split>;
  S::Arguments args{};
  args.split_k = 0;
  CHECK(S::entry_arguments<0>(args).split_k == 1);
  CHECK(S::entry_arguments<1>(args).split_k == 0);
  args.split_k = 3;
  CHECK(S::entry_arguments<0>(args).split_k == 3);
}

// The entry's split reaches the GEMM's sizing: 4 output tiles with a long K are split
// automatically on any GPU (a float workspace for the partial sums), and not under the entry that
// won unsplit. (This case sizes the workspace and launches nothing; the bench's decode rows run it.)
TEST_CASE("Tuned sizes the GEMM with an entry's K split in place of the automatic one", "[tuned][gpu]") {
  test::require_gpu();
  using S = gemm::Tuned<split>;
  S::Arguments args{};
  args.m = 128;
  args.n = 256;
  args.k = 4096;
  args.split_k = 0;
  CHECK(gemm::Gemm<Split>::workspace_size(S::entry_arguments<1>(args)) > 0);
  CHECK(gemm::Gemm<Split>::workspace_size(S::entry_arguments<0>(args)) == 0);
}

TEST_CASE("Tuned runs a hinted 64 x 112 entry", "[tuned][gpu]") {
  test::require_gpu();
  using H = gemm::Tuned<hinted>;
  CHECK(check<H>(3, 336, 256, 0, false) <= 1.0);   // N = 3 tiles of 112: D stored with TMA
  CHECK(check<H>(64, 300, 200, 0, false) <= 1.0);  // N = 300: a partial tile; rows of D not 16-byte aligned
}

TEST_CASE("Tuned refuses a problem no entry can run, with the entry's reason", "[tuned][gpu]") {
  test::require_gpu();
  using Plain = gemm::Tuned<tessera_tuned_sample::bf16_tn>;
  Plain::Arguments args{};
  args.m = args.n = args.k = 64;
  args.lda = args.ldb = args.ldd = 64;  // null pointers
  CHECK(Plain::select(args) == -1);
  Status const s = Plain::run(args);
  CHECK_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("no entry of the table can run this problem") && Catch::Contains("null pointer"));
}

// gemm::Tuned::run inside a CUDA graph: three problems through two tables (the swapped entry at
// M = 2, the 4096 entry, the 128 x 64 entry with a caller's K split of 3), each with its workspace
// (split-K counters reset with a memset node) captured before anything ran eagerly, then replayed twice
// over poisoned outputs, each replay bit for bit the eager runs' D.
TEST_CASE("Tuned runs captured in a CUDA graph, replayed bit for bit", "[tuned][gpu][graph]") {
  test::require_gpu();
  using Plain = gemm::Tuned<tessera_tuned_sample::bf16_tn>;
  using S = gemm::Tuned<split>;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> v(-7, 7);
  auto values = [&](std::size_t count) {
    std::vector<bfloat16_t> x(count);
    for (auto& e : x) {
      int const r = v(rng);
      e = bfloat16_t(float(r == 0 ? 1 : r) / 8.0f);
    }
    return x;
  };
  int const k = 1024;
  test::DeviceBuffer<bfloat16_t> a(values(std::size_t(2500) * k)), b(values(std::size_t(640) * k));
  test::DeviceBuffer<bfloat16_t> d_small(std::size_t(2) * 384), d_large(std::size_t(2500) * 640), d_split(std::size_t(128) * 256);
  auto const small = tn_arguments<Plain>(2, 384, k, a.get(), b.get(), d_small.get());
  auto const large = tn_arguments<Plain>(2500, 640, k, a.get(), b.get(), d_large.get());
  auto split_args = tn_arguments<S>(128, 256, k, a.get(), b.get(), d_split.get());
  split_args.split_k = 3;
  REQUIRE(Plain::select(small) == 0);
  REQUIRE(Plain::select(large) == 2);
  REQUIRE(S::workspace_size(split_args) > 0);
  // Each its own workspace (the swapped entry at M = 2 splits K on its own too).
  test::DeviceBuffer<char> ws_small(std::max<std::size_t>(Plain::workspace_size(small), 1)),
      ws_large(std::max<std::size_t>(Plain::workspace_size(large), 1)), workspace(S::workspace_size(split_args));

  tessera::test::check_graph_replay(
      [&](cudaStream_t stream) {
        Status const s1 = Plain::run(small, ws_small.get(), stream);
        Status const s2 = Plain::run(large, ws_large.get(), stream);
        Status const s3 = S::run(split_args, workspace.get(), stream);
        INFO(s1.message() << " | " << s2.message() << " | " << s3.message());
        REQUIRE((s1.ok() && s2.ok() && s3.ok()));
      },
      d_small, d_large, d_split);
  // The results are right (a spot check: row 0 of the small problem against the host).
  auto const ha = a.to_host(), hb = b.to_host(), got = d_small.to_host();
  for (int j = 0; j < 384; ++j) {
    double acc = 0;
    for (int kk = 0; kk < k; ++kk) acc += double(ha[std::size_t(kk)].to_float()) * hb[std::size_t(j) * k + kk].to_float();
    CHECK(std::fabs(got[std::size_t(j)].to_float() - acc) <= std::ldexp(std::fabs(acc), -7) + 1e-3);
  }
}
