// The sm80 GEMM with half inputs in all four operand layouts, on the standard shapes.
#include "gemm_check.hpp"

using namespace tessera;
using tessera::test::GemmCheck;

namespace {
template <class LayoutA, class LayoutB>
using Cfg = gemm::Config<arch::Sm80, half, LayoutA, half, LayoutB, half, float, gemm::BlockTile<128, 128, 32>,
                         gemm::Warps<2, 2>, gemm::Stages<3>, tessera::test::AllStages>;

// Every shape with the identity epilogue, then every epilogue stage on a residue shape and batched.
template <class C>
void check_all_shapes() {
  for (auto const& cs : tessera::test::standard_cases()) GemmCheck<C>::run(cs);
  tessera::test::check_every_stage<C>({127, 61, 129});
  tessera::test::check_every_stage<C>({40, 72, 64, 2});
}
}  // namespace

TEST_CASE("sm80 GEMM f16: TN, NT, NN, TT on odd shapes, every epilogue stage", "[gpu][gemm][sm80][f16]") {
  SECTION("TN (A row-major, B column-major)") { check_all_shapes<Cfg<RowMajor, ColumnMajor>>(); }
  SECTION("NT (A column-major, B row-major)") { check_all_shapes<Cfg<ColumnMajor, RowMajor>>(); }
  SECTION("NN (A column-major, B column-major)") { check_all_shapes<Cfg<ColumnMajor, ColumnMajor>>(); }
  SECTION("TT (A row-major, B row-major)") { check_all_shapes<Cfg<RowMajor, RowMajor>>(); }
}
