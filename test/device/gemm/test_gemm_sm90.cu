// The sm90 GEMM (TMA + wgmma, warp-specialized): bf16 and f16 with K-major operands (TN) on the
// standard odd shapes, batched, with every epilogue stage (also between per-tensor scales), row-
// and column-major D (stored with TMA or, where its rows are not 16-byte aligned, by the
// threads), float and int8 D; cooperative (64- and 128-row tiles, 112, 128 and 256 columns) and
// ping-pong schedules; clusters of 2 x 1 and 1 x 2; the epilogue's column vectors staged in
// shared memory and read from global. Operands TMA cannot read (misaligned, rows
// not 16 bytes apart) and unsupported split-K are refused with a message, and nothing is
// written. The other layouts: test_gemm_sm90_layouts.cu.
#include "../support/graph_replay.hpp"
#include "fuzz.hpp"
#include "sm90_check.hpp"

using namespace tessera;
using namespace tessera::test::sm90;
using tessera::test::DeviceCase;

namespace {
using F32D = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, float, float, gemm::BlockTile<128, 128, 64>,
                          gemm::Warpgroups<2>, gemm::Stages<4>>;
using I8D = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, std::int8_t, float, gemm::BlockTile<128, 256, 64>,
                         gemm::Warpgroups<2>, gemm::Stages<4>>;
// The README's Config.
using Readme = Sm90Cfg<bfloat16_t, 128, 256, 2, 4, epilogue::Identity>;
}  // namespace

TEST_CASE("sm90 GEMM bf16 TN on odd shapes, every epilogue stage", "[gpu][gemm][sm90][bf16]") {
  SECTION("128 x 128 tiles, 2 consumer warpgroups, 4 stages") { all_shapes<Sm90Cfg<bfloat16_t, 128, 128, 2, 4>>(); }
  SECTION("128 x 256 tiles, 2 consumer warpgroups, 4 stages") {
    for (auto const& cs : sm90_cases()) tessera::test::GemmCheck<Readme>::run(cs);
  }
  SECTION("ping-pong, 128 x 128 tiles, 4 stages") { all_shapes<PingPongCfg<bfloat16_t, 128, 128, 4>>(); }
  SECTION("ping-pong, 64 x 256 tiles, 4 stages") {
    for (auto const& cs : sm90_cases()) tessera::test::GemmCheck<PingPongCfg<bfloat16_t, 64, 256, 4, epilogue::Identity>>::run(cs);
  }
  SECTION("64 x 128 tiles, 1 consumer warpgroup, 2 stages") {
    for (auto const& cs : sm90_cases()) tessera::test::GemmCheck<Sm90Cfg<bfloat16_t, 64, 128, 1, 2, epilogue::Identity>>::run(cs);
  }
  SECTION("128 x 112 tiles (an odd multiple of 16: 16-column epilogue chunks), 2 consumer warpgroups, 7 stages") {
    all_shapes<Sm90Cfg<bfloat16_t, 128, 112, 2, 7>>();
  }
}

// Clusters of two blocks sharing B (2 x 1) or A (1 x 2) by multicast; odd tile counts leave a
// block of the last cluster without a tile of its own.
TEST_CASE("sm90 GEMM bf16 TN in clusters of two", "[gpu][gemm][sm90][bf16][cluster]") {
  SECTION("2 x 1, 128 x 128 tiles, every epilogue stage") { all_shapes<ClusterCfg<bfloat16_t, 128, 128, 4, 2, 1>>(); }
  SECTION("1 x 2, 128 x 256 tiles") {
    for (auto const& cs : sm90_cases()) tessera::test::GemmCheck<ClusterCfg<bfloat16_t, 128, 256, 4, 1, 2, epilogue::Identity>>::run(cs);
  }
  SECTION("2 x 1, ping-pong 64 x 256 tiles") {
    using Cfg = Sm90Cfg<bfloat16_t, 64, 256, 2, 4, epilogue::Identity, gemm::PingPong, RowMajor, ColumnMajor, gemm::ClusterShape<2, 1>>;
    for (auto const& cs : sm90_cases()) tessera::test::GemmCheck<Cfg>::run(cs);
  }
}

// Per-tensor scales with an epilogue chain on 16-bit operands and D, on tiles inside D and at its
// edges (300 x 400): the chain runs between scale_a * scale_b and scale_d in both epilogues.
TEST_CASE("sm90 GEMM bf16 with per-tensor scales, every epilogue stage", "[gpu][gemm][sm90][bf16]") {
  using Cfg = Sm90Cfg<bfloat16_t, 128, 128, 2, 4>;
  using tessera::test::check_every_stage, tessera::test::Scales;
  SECTION("scales not 1") { check_every_stage<Cfg>({300, 400, 200}, Scales{true, 2.0f, 0.5f, 0.25f, false}); }
  SECTION("scale_a * scale_b not 1, scale_d 1") { check_every_stage<Cfg>({300, 400, 200}, Scales{true, 4.0f, 0.5f, 1.0f, false}); }
  SECTION("scales of 1 through pointers") { check_every_stage<Cfg>({300, 400, 200}, Scales{true, 1.0f, 1.0f, 1.0f, false}); }
}

TEST_CASE("sm90 GEMM f16 TN on odd shapes, every epilogue stage", "[gpu][gemm][sm90][f16]") {
  SECTION("cooperative") { all_shapes<Sm90Cfg<half_t, 128, 128, 2, 4>>(); }
  SECTION("ping-pong") { all_shapes<PingPongCfg<half_t, 128, 128, 5>>(); }
}

// The per-column vectors of every stage (three) staged in shared memory for the interior tiles
// (test_gemm_sm90_columns.cu pins which Configs stage), on 300 x 400: interior tiles for 128-row
// tiles, the rest at the edges. One Config has no room for the copy and reads them from global.
TEST_CASE("sm90 GEMM every epilogue stage with the column vectors staged", "[gpu][gemm][sm90][columns]") {
  using tessera::test::check_every_stage;
  SECTION("cooperative 128 x 128, batched") { check_every_stage<Sm90Cfg<bfloat16_t, 128, 128, 2, 4>>({300, 400, 200, 2}); }
  SECTION("cooperative 128 x 112: tiles of fewer columns than a consumer's threads") {
    check_every_stage<Sm90Cfg<bfloat16_t, 128, 112, 2, 7>>({300, 400, 200});
  }
  SECTION("ping-pong 128 x 128, 4 stages") { check_every_stage<PingPongCfg<bfloat16_t, 128, 128, 4>>({300, 400, 200}); }
  SECTION("clusters of 2 x 1") { check_every_stage<ClusterCfg<bfloat16_t, 128, 128, 4, 2, 1>>({300, 400, 200}); }
  SECTION("not staged: f16 ping-pong 128 x 128, 5 stages (96 bytes short)") {
    STATIC_REQUIRE(!gemm::sm90::Epilogue<PingPongCfg<half_t, 128, 128, 5>>::stage_columns);
    check_every_stage<PingPongCfg<half_t, 128, 128, 5>>({300, 400, 200});
  }
}

// D wider and narrower than the operands: TMA stores 32 columns of 4 bytes (128-byte swizzle, two
// staging buffers) and of 1 byte (32-byte swizzle, pairs written by each thread).
TEST_CASE("sm90 GEMM bf16 TN into float and int8 D", "[gpu][gemm][sm90][bf16]") {
  SECTION("float D") {
    for (auto const& cs : sm90_cases()) tessera::test::GemmCheck<F32D>::run(cs);
  }
  SECTION("int8 D (saturating; a float result may round to the neighbouring integer)") {
    for (auto const& cs : sm90_cases()) tessera::test::GemmCheck<I8D>::run(cs, {}, {}, 1, 1.0);
  }
  SECTION("float D, 64 x 112 tiles (16-column chunks of 64-byte rows)") {
    using F32N112 = gemm::Config<arch::Sm90, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, float, float, gemm::BlockTile<64, 112, 64>,
                                 gemm::Warpgroups<1>, gemm::Stages<8>>;
    for (auto const& cs : sm90_cases()) tessera::test::GemmCheck<F32N112>::run(cs);
  }
}

TEST_CASE("sm90 GEMM refuses operands TMA cannot read, with the fix", "[gpu][gemm][sm90][errors]") {
  tessera::test::require_gpu();
  using Cfg = Sm90Cfg<bfloat16_t, 128, 128, 2, 4, epilogue::Identity>;
  test::DeviceBuffer<bfloat16_t> a(64 * 264 + 8), b(64 * 264 + 8), d(64 * 72);
  auto const poison = d.to_host();
  auto args = [&] {
    gemm::Arguments<Cfg> x = test::args_64<Cfg>(a, b, d);
    x.k = 256;  // 4 k-tiles
    x.lda = x.ldb = 264;
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
                          Bad{"split_k = 2 without a workspace", split, "bytes of workspace (workspace_size())"}}) {
    INFO(bad.what);
    Status const s = gemm::Gemm<Cfg>{}.run(bad.args);
    INFO(s.message());
    CHECK_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains(bad.says));
  }
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const after = d.to_host();
  CHECK(std::memcmp(after.data(), poison.data(), after.size() * sizeof(bfloat16_t)) == 0);  // nothing written
}

// Stress (fuzz.hpp, stress_cases): grids of thousands to tens of thousands of tiles, each problem
// run three times, bit for bit against the first run and the first against the device
// reference, D poisoned before each. Issue 29's race (an edge tile's staging after an interior
// tile's stores) showed on the first three shapes of stress_cases().
TEST_CASE("sm90 GEMM stress: the README's Config (cooperative 128 x 256, TMA store)", "[gpu][gemm][sm90][stress]") {
  tessera::test::stress<Readme>(tessera::test::stress_cases(), 3);
}

TEST_CASE("sm90 GEMM stress: cooperative 128 x 128, bias (column vectors staged) + GELU", "[gpu][gemm][sm90][stress]") {
  using Cfg = Sm90Cfg<bfloat16_t, 128, 128, 2, 4>;
  STATIC_REQUIRE(gemm::sm90::Epilogue<Cfg>::stage_columns);
  // A random per-column bias as wide as the widest N of the shapes, and GELU.
  std::vector<float> bias(1000000);
  std::mt19937 rng(5);
  for (auto& x : bias) x = tessera::test::random_value<float>(rng);
  tessera::test::DeviceBuffer<float> d_bias(bias);
  Cfg::Epilogue epi{};
  get<2>(epi.stages) = {{d_bias.get()}, true};
  get<7>(epi.stages).enabled = true;
  tessera::test::stress<Cfg>(tessera::test::stress_cases(), 3, epi);
}

TEST_CASE("sm90 GEMM stress: ping-pong", "[gpu][gemm][sm90][stress]") {
  using tessera::test::stress, tessera::test::stress_cases;
  SECTION("64 x 256") { stress<PingPongCfg<bfloat16_t, 64, 256, 4, epilogue::Identity>>(stress_cases(), 3); }
  SECTION("128 x 128") { stress<PingPongCfg<bfloat16_t, 128, 128, 4>>(stress_cases(), 3); }
}

TEST_CASE("sm90 GEMM stress: clusters", "[gpu][gemm][sm90][stress]") {
  using tessera::test::stress, tessera::test::stress_cases;
  SECTION("2 x 1, 128 x 128") { stress<ClusterCfg<bfloat16_t, 128, 128, 4, 2, 1>>(stress_cases(), 3); }
  SECTION("1 x 2, 128 x 256") { stress<ClusterCfg<bfloat16_t, 128, 256, 4, 1, 2, epilogue::Identity>>(stress_cases(), 3); }
}

TEST_CASE("sm90 GEMM stress: float D (two staging buffers)", "[gpu][gemm][sm90][stress]") {
  tessera::test::stress<F32D>(tessera::test::stress_cases(), 3);
}

// The persistent kernel's reuse of its stages and staging buffers under compute-sanitizer
// (tools/gpu-check.sh runs racecheck and synccheck on this case alone): every block takes about
// three tiles, interior tiles followed by edge tiles; the host reference.
TEST_CASE("sm90 GEMM persistent reuse: several tiles a block", "[gpu][gemm][sm90][persistent]") {
  tessera::test::GemmCheck<Readme>::run({1536, 8000, 128});
  tessera::test::GemmCheck<Sm90Cfg<bfloat16_t, 128, 128, 2, 4>>::run({2048, 3100, 64});
}

// Problems with more than 2^31 elements in A, B or D.
TEST_CASE("sm90 GEMM with 64-bit offsets: A, B or D over 2^31 elements", "[gpu][gemm][sm90][large]") {
  tessera::test::stress<Readme>(tessera::test::large_cases(), 3);
}

// The fuzz (fuzz.hpp): random problems per Config from a fixed seed.
TEST_CASE("sm90 GEMM fuzz: bf16 and f16 TN, every schedule, random epilogues", "[gpu][gemm][sm90][fuzz]") {
  using tessera::test::fuzz;
  fuzz<Sm90Cfg<bfloat16_t, 128, 128, 2, 4>>("sm90.bf16.tn.128x128.all_stages", 300);
  fuzz<Readme>("sm90.bf16.tn.128x256", 300);
  fuzz<PingPongCfg<bfloat16_t, 128, 128, 4>>("sm90.bf16.tn.pingpong.128x128.all_stages", 200);
  fuzz<PingPongCfg<bfloat16_t, 64, 256, 4, epilogue::Identity>>("sm90.bf16.tn.pingpong.64x256", 100);
  fuzz<Sm90Cfg<bfloat16_t, 64, 128, 1, 2, epilogue::Identity>>("sm90.bf16.tn.64x128.one_consumer", 100);
  fuzz<Sm90Cfg<bfloat16_t, 128, 112, 2, 7>>("sm90.bf16.tn.128x112.all_stages", 100);
  fuzz<ClusterCfg<bfloat16_t, 128, 128, 4, 2, 1>>("sm90.bf16.tn.cluster2x1.all_stages", 200);
  fuzz<ClusterCfg<bfloat16_t, 128, 256, 4, 1, 2, epilogue::Identity>>("sm90.bf16.tn.cluster1x2.128x256", 100);
  fuzz<Sm90Cfg<half_t, 128, 128, 2, 4>>("sm90.f16.tn.128x128.all_stages", 200);
  fuzz<PingPongCfg<half_t, 128, 128, 5>>("sm90.f16.tn.pingpong.all_stages", 100);
  fuzz<F32D>("sm90.bf16.tn.float_d", 100);
  fuzz<I8D>("sm90.bf16.tn.int8_d", 100);
}

// Gemm::run inside a CUDA graph: three GEMMs (plain, bias + GELU, split-K with its workspace,
// whose counters run zeroes with a memset node) captured on a stream before anything ran eagerly
// (the first run's one-time set-up happens during the capture), the graph replayed twice over
// poisoned outputs, each replay bit for bit the eager runs' D.
TEST_CASE("sm90 GEMM runs captured in a CUDA graph, replayed bit for bit", "[gpu][gemm][sm90][graph]") {
  tessera::test::require_gpu();
  namespace dv = tessera::test::device_verify;
  using tessera::test::DeviceBuffer;
  using Fused = Sm90Cfg<bfloat16_t, 128, 128, 2, 4>;
  int const m = 1000, n = 1500, k = 776;  // rows of A and B 16-byte aligned (TMA); a K residue
  DeviceBuffer<bfloat16_t> a(std::size_t(m) * k), b(std::size_t(n) * k);
  dv::fill(a.get(), a.size(), 3);
  dv::fill(b.get(), b.size(), 4);
  std::vector<float> host_bias(static_cast<std::size_t>(n));
  std::mt19937 rng(6);
  for (auto& x : host_bias) x = tessera::test::random_value<float>(rng);
  DeviceBuffer<float> bias(host_bias);
  DeviceBuffer<bfloat16_t> d_plain(std::size_t(m) * n), d_fused(std::size_t(m) * n), d_split(std::size_t(m) * n);

  auto args_for = [&]<class Cfg>(Cfg*, DeviceBuffer<bfloat16_t>& d) {
    gemm::Arguments<Cfg> x;
    x.m = m;
    x.n = n;
    x.k = k;
    x.a = a.get();
    x.lda = k;
    x.b = b.get();
    x.ldb = k;
    x.d = d.get();
    x.ldd = n;
    return x;
  };
  auto plain = args_for(static_cast<Readme*>(nullptr), d_plain);
  auto fused = args_for(static_cast<Fused*>(nullptr), d_fused);
  get<2>(fused.epilogue.stages) = {{bias.get()}, true};
  get<7>(fused.epilogue.stages).enabled = true;
  auto split = args_for(static_cast<Readme*>(nullptr), d_split);
  split.split_k = 3;
  DeviceBuffer<char> workspace(gemm::Gemm<Readme>::workspace_size(split));
  REQUIRE(workspace.size() > 0);

  tessera::test::check_graph_replay(
      [&](cudaStream_t stream) {
        Status const s1 = gemm::Gemm<Readme>{}.run(plain, nullptr, stream);
        Status const s2 = gemm::Gemm<Fused>{}.run(fused, nullptr, stream);
        Status const s3 = gemm::Gemm<Readme>{}.run(split, workspace.get(), stream);
        INFO(s1.message() << " | " << s2.message() << " | " << s3.message());
        REQUIRE((s1.ok() && s2.ok() && s3.ok()));
      },
      d_plain, d_fused, d_split);
}
