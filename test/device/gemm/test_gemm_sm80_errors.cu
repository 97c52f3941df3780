// Bad arguments: can_implement says what is wrong and how to fix it, run launches nothing and
// D keeps its poison.
#include "gemm_check.hpp"

using namespace tessera;
using tessera::test::DeviceBuffer;

namespace {
using Cfg = gemm::Config<arch::Sm80, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, bfloat16_t, float,
                         gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<3>>;

struct Fixture {
  DeviceBuffer<bfloat16_t> a{64 * 64}, b{64 * 64}, d{64 * 64};
  gemm::Arguments<Cfg> good() { return tessera::test::args_64<Cfg>(a, b, d); }
  // Runs the bad arguments: the Status must carry `code` and `message`, and D must be untouched.
  void expect_rejected(gemm::Arguments<Cfg> const& args, StatusCode code, std::string const& message) {
    gemm::Gemm<Cfg> op;
    Status const checked = op.can_implement(args);
    INFO(checked.message());
    REQUIRE(checked.code() == code);
    REQUIRE_THAT(checked.message(), Catch::Contains(message));
    Status const ran = op.run(args);
    REQUIRE(ran.code() == code);
    TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
    for (auto const& x : d.to_host()) REQUIRE(x.bits() == 0xA5A5);  // nothing was written
  }
};
}  // namespace

TEST_CASE("sm80 GEMM rejects bad arguments with a fixable message and launches nothing", "[gpu][gemm][sm80][errors]") {
  tessera::test::require_gpu();
  Fixture f;
  REQUIRE(gemm::Gemm<Cfg>::can_implement(f.good()).ok());

  auto args = f.good();
  args.m = 0;
  f.expect_rejected(args, StatusCode::kInvalidArgument, "M, N and K must be at least 1; got M = 0");
  args = f.good();
  args.k = -5;
  f.expect_rejected(args, StatusCode::kInvalidArgument, "K = -5");
  args = f.good();
  args.b = nullptr;
  f.expect_rejected(args, StatusCode::kInvalidArgument, "a null pointer for B");
  args = f.good();
  args.lda = 32;
  f.expect_rejected(args, StatusCode::kInvalidArgument, "lda = 32 is smaller than K = 64 for a row-major A; pass lda >= 64");
  args = f.good();
  args.ldb = 10;
  f.expect_rejected(args, StatusCode::kInvalidArgument, "ldb = 10 is smaller than K = 64 for a column-major B");
  args = f.good();
  args.d_order = gemm::StorageOrder::kColumnMajor;
  args.ldd = 63;
  f.expect_rejected(args, StatusCode::kInvalidArgument, "ldd = 63 is smaller than M = 64");
  args = f.good();
  args.split_k = 3;  // K = 64 has 2 tiles of 32
  f.expect_rejected(args, StatusCode::kInvalidArgument, "split_k = 3 must be between 1 and the number of K tiles (2");
  args = f.good();
  args.batch_count = 0;
  f.expect_rejected(args, StatusCode::kInvalidArgument, "batch_count = 0 must be at least 1");
  args = f.good();
  args.raster_group = -1;
  f.expect_rejected(args, StatusCode::kInvalidArgument, "raster_group = -1 must be 0 (automatic) or a number of tile rows");

  // Split-K without a workspace: can_implement is fine (the sizes are), run says what is missing.
  args = f.good();
  args.split_k = 2;
  REQUIRE(gemm::Gemm<Cfg>::can_implement(args).ok());
  REQUIRE(gemm::Gemm<Cfg>::workspace_size(args) == 2u * 64 * 64 * sizeof(float));
  Status const s = gemm::Gemm<Cfg>{}.run(args, nullptr);
  REQUIRE(s.code() == StatusCode::kWorkspaceTooSmall);
  REQUIRE_THAT(s.message(), Catch::Contains("needs 32768 bytes of workspace"));
  for (auto const& x : f.d.to_host()) REQUIRE(x.bits() == 0xA5A5);

  // split_k = 0: the GEMM chooses. K = 64 (2 k-tiles) is too short to split; a long K over one
  // output tile gets several slices, at most 16, none empty, and a workspace for them.
  args = f.good();
  args.split_k = 0;
  REQUIRE(gemm::Gemm<Cfg>::split_k_for(args) == 1);
  REQUIRE(gemm::Gemm<Cfg>::workspace_size(args) == 0);
  args.k = 4096;
  args.lda = args.ldb = 4096;
  int const split = gemm::Gemm<Cfg>::split_k_for(args);
  REQUIRE(split > 1);
  REQUIRE(split <= 16);
  int const per = (128 + split - 1) / split;  // 128 k-tiles of 32
  REQUIRE((split - 1) * per < 128);
  REQUIRE(gemm::Gemm<Cfg>::workspace_size(args) == std::size_t(split) * 64 * 64 * sizeof(float));
  Status const s_auto = gemm::Gemm<Cfg>{}.run(args, nullptr);
  REQUIRE(s_auto.code() == StatusCode::kWorkspaceTooSmall);
  REQUIRE_THAT(s_auto.message(), Catch::Contains("(automatic: " + std::to_string(split) + " slices)"));
  args.split_k = -1;
  REQUIRE_THAT(gemm::Gemm<Cfg>::can_implement(args).message(), Catch::Contains("or 0 to let the GEMM choose"));
}
