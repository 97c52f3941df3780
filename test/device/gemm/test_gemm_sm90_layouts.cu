// The sm90 GEMM with MN-major operands (column-major A, row-major B: TMA boxes of 64 x BK per
// 64-row block, transposed wgmma descriptors): bf16 NT, NN and TT on the standard odd shapes,
// cooperative and ping-pong, every epilogue stage on NT (the epilogue works on the accumulators,
// whatever the operands' layouts; the 13-stage chain is the costliest code to compile); a cluster
// of two multicasting the MN-major operand (B in NT and TT, A in NN) in 64-row blocks.
#include <type_traits>

#include "fuzz.hpp"
#include "sm90_check.hpp"

using namespace tessera;
using namespace tessera::test::sm90;
using tessera::test::AllStages;

namespace {
// MN-major operands (column-major A, row-major B): TMA boxes of 64 x BK per 64-row block.
// Cluster: a cluster of two sharing the MN-major operand's tile in 64-row blocks.
template <class LA, class LB, class Cluster, bool EveryStage>
void layout_suite() {
  using Epi = std::conditional_t<EveryStage, AllStages, epilogue::Identity>;
  if constexpr (EveryStage) all_shapes<Sm90Cfg<bfloat16_t, 128, 128, 2, 4, Epi, gemm::Cooperative, LA, LB>>();
  else shapes<Sm90Cfg<bfloat16_t, 128, 128, 2, 4, Epi, gemm::Cooperative, LA, LB>>();
  shapes<Sm90Cfg<bfloat16_t, 128, 256, 2, 4, epilogue::Identity, gemm::Cooperative, LA, LB>>();
  shapes<Sm90Cfg<bfloat16_t, 128, 128, 2, 5, epilogue::Identity, gemm::PingPong, LA, LB>>();
  shapes<Sm90Cfg<bfloat16_t, 128, 256, 2, 4, epilogue::Identity, gemm::Cooperative, LA, LB, Cluster>>();
}

}  // namespace

TEST_CASE("sm90 GEMM bf16 NT, NN, TT on odd shapes", "[gpu][gemm][sm90][bf16][layouts]") {
  SECTION("NT (A column-major, B row-major), every epilogue stage") {
    layout_suite<ColumnMajor, RowMajor, gemm::ClusterShape<2, 1>, true>();
  }
  SECTION("NN (A column-major, B column-major)") { layout_suite<ColumnMajor, ColumnMajor, gemm::ClusterShape<1, 2>, false>(); }
  SECTION("TT (A row-major, B row-major)") { layout_suite<RowMajor, RowMajor, gemm::ClusterShape<2, 1>, false>(); }
}


// The fuzz (fuzz.hpp) of the MN-major layouts: the Configs of layout_suite.
TEST_CASE("sm90 GEMM bf16 NT, NN, TT fuzz", "[gpu][gemm][sm90][bf16][layouts][fuzz]") {
  using tessera::test::fuzz;
  fuzz<Sm90Cfg<bfloat16_t, 128, 128, 2, 4, AllStages, gemm::Cooperative, ColumnMajor, RowMajor>>("sm90.bf16.nt.all_stages", 200);
  fuzz<Sm90Cfg<bfloat16_t, 128, 256, 2, 4, epilogue::Identity, gemm::Cooperative, ColumnMajor, ColumnMajor>>("sm90.bf16.nn.128x256", 100);
  fuzz<Sm90Cfg<bfloat16_t, 128, 128, 2, 5, epilogue::Identity, gemm::PingPong, RowMajor, RowMajor>>("sm90.bf16.tt.pingpong", 100);
  fuzz<Sm90Cfg<bfloat16_t, 128, 256, 2, 4, epilogue::Identity, gemm::Cooperative, ColumnMajor, RowMajor, gemm::ClusterShape<2, 1>>>(
      "sm90.bf16.nt.cluster2x1", 100);
}
