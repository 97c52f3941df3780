// The sm90 GEMM with Arguments::swap_ab: the kernel computes D^T = B^T A^T, its BlockTile M over
// N and its N over M (the decode shapes' narrow tiles). Every standard case swapped, every
// epilogue stage (row and column broadcasts must land on D's own rows and columns), both
// operand orders the swap keeps (TN and NT), and the Configs that cannot swap, refused with
// the fix.
#include <cstring>

#include "fuzz.hpp"
#include "sm90_check.hpp"

using namespace tessera;
using namespace tessera::test::sm90;
using tessera::test::GemmCase;
using tessera::test::GemmCheck;

namespace {
template <class Cfg>
void swapped_shapes() {
  for (GemmCase cs : sm90_cases()) {
    cs.swap_ab = true;
    GemmCheck<Cfg>::run(cs);
  }
  // Decode shapes: M of 1 to 64 on the tile's N side, automatic split-K, a batch.
  for (GemmCase cs : {GemmCase{1, 4096, 1024, 1, 0}, GemmCase{7, 1000, 2048, 1, 0}, GemmCase{61, 520, 777, 2, 0},
                      GemmCase{16, 4096, 64}})
    GemmCheck<Cfg>::run({cs.m, cs.n, cs.k, cs.batch, cs.split_k, -1, 0, gemm::StorageOrder::kRowMajor, -2, true});
}

template <class Cfg>
void swapped_every_stage() {
  tessera::test::check_every_stage<Cfg>({127, 61, 129, 1, 1, -1, 0, gemm::StorageOrder::kRowMajor, -2, true});
  tessera::test::check_every_stage<Cfg>({5, 72, 64, 2, 1, -1, 0, gemm::StorageOrder::kColumnMajor, -2, true});
}
}  // namespace

TEST_CASE("sm90 GEMM with swap_ab on odd shapes, every epilogue stage", "[gpu][gemm][sm90][swap]") {
  SECTION("bf16 TN, 128 x 32 tiles, 8 stages") {
    using Cfg = Sm90Cfg<bfloat16_t, 128, 32, 2, 8>;
    swapped_shapes<Cfg>();
    swapped_every_stage<Cfg>();
  }
  SECTION("f16 TN, 64 x 32 tiles, one consumer, 12 stages") { swapped_shapes<Sm90Cfg<tessera::half_t, 64, 32, 1, 12>>(); }
  SECTION("bf16 TN, 64 x 112 tiles (16-column epilogue chunks), one consumer, 9 stages") {
    using Cfg = Sm90Cfg<bfloat16_t, 64, 112, 1, 9, tessera::test::AllStages>;
    swapped_shapes<Cfg>();
    swapped_every_stage<Cfg>();
  }
  SECTION("bf16 NT (both MN-major), 128 x 64 tiles") {
    using Cfg = Sm90Cfg<bfloat16_t, 128, 64, 2, 4, tessera::test::AllStages, gemm::Cooperative, ColumnMajor, RowMajor>;
    swapped_shapes<Cfg>();
    swapped_every_stage<Cfg>();
  }
}

TEST_CASE("swap_ab is refused where the kernel cannot exchange A and B, with the fix", "[gpu][gemm][sm90][swap][errors]") {
  tessera::test::require_gpu();
  test::DeviceBuffer<bfloat16_t> a(64 * 64), b(64 * 64), d(64 * 64);
  auto refused = [&]<class Cfg>(Cfg*, char const* says) {
    gemm::Arguments<Cfg> args = test::args_64<Cfg>(a, b, d);
    args.swap_ab = true;
    auto const poison = d.to_host();
    Status const s = gemm::Gemm<Cfg>::can_implement(args);
    INFO(s.message());
    CHECK_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains(says));
    CHECK_FALSE(gemm::Gemm<Cfg>{}.run(args).ok());
    TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
    auto const after = d.to_host();
    CHECK(std::memcmp(after.data(), poison.data(), after.size() * sizeof(bfloat16_t)) == 0);  // nothing launched
  };
  using Sm80 = gemm::Config<arch::Sm80, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float,
                            gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<4>>;
  refused(static_cast<Sm80*>(nullptr), "pass the transposed problem");
  using Nn = Sm90Cfg<bfloat16_t, 128, 128, 2, 4, epilogue::Identity, gemm::Cooperative, ColumnMajor, ColumnMajor>;
  refused(static_cast<Nn*>(nullptr), "both K-major");
}

// swap_ab on large grids (fuzz.hpp): decode-like and wide problems whose D^T has thousands of
// 128 x 32 tiles, each run twice.
TEST_CASE("sm90 GEMM stress with swap_ab", "[gpu][gemm][sm90][swap][stress]") {
  using tessera::test::DeviceCase;
  std::vector<DeviceCase> cases = {{.m = 64, .n = 200000, .k = 128, .swap_ab = true},
                                   {.m = 100, .n = 60000, .k = 64, .swap_ab = true},
                                   {.m = 4096, .n = 60000, .k = 64, .swap_ab = true},
                                   {.m = 7, .n = 30001, .k = 4096, .split_k = 0, .swap_ab = true},
                                   {.m = 3000, .n = 20000, .k = 65, .d_order = gemm::StorageOrder::kColumnMajor, .swap_ab = true}};
  tessera::test::stress<Sm90Cfg<bfloat16_t, 128, 32, 2, 8>>(cases, 3);
}

TEST_CASE("sm90 GEMM fuzz with swap_ab", "[gpu][gemm][sm90][swap][fuzz]") {
  using tessera::test::fuzz;
  fuzz<Sm90Cfg<bfloat16_t, 128, 32, 2, 8>>("sm90.bf16.tn.128x32.all_stages", 200);
  fuzz<Sm90Cfg<tessera::half_t, 64, 32, 1, 12>>("sm90.f16.tn.64x32", 100);
  fuzz<Sm90Cfg<bfloat16_t, 128, 64, 2, 4, tessera::test::AllStages, gemm::Cooperative, ColumnMajor, RowMajor>>("sm90.bf16.nt.128x64", 100);
}
