// Epilogue stages on the host: each stage's formula, the chain's order, run-time switching, and
// the saturating conversion to the output types. (The GPU GEMM tests run every stage again inside
// the kernel against the same host evaluation.)
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "tessera/core/matrix_layout.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

using namespace tessera;
using namespace tessera::epilogue;

TEST_CASE("epilogue stages compute their formulas", "[epilogue]") {
  Coord const at{2, 3, 1};
  std::vector<float> row{10, 20, 30, 40}, col{1, 2, 3, 4, 5};
  // A 2-batch 4 x 5 matrix, row-major per batch: value = 1000 b + 10 r + c.
  std::vector<float> m(2 * 4 * 5);
  for (int b = 0; b < 2; ++b)
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 5; ++c) m[std::size_t(b * 20 + r * 5 + c)] = float(1000 * b + 10 * r + c);

  CHECK(LinearCombination<float>{2.0f, 0.0f, {}}(3.0f, at) == 6.0f);  // beta 0: C (null) not read
  auto const c_row = MatrixRef<float>::row_major(m.data(), 5, 20);
  CHECK(LinearCombination<float>{2.0f, 0.5f, c_row}(3.0f, at) == 6.0f + 0.5f * 1023.0f);
  // The same matrix seen column-major (element (r, c) at c * 4 + r of the first 20 values).
  auto const c_col = MatrixRef<float>::column_major(m.data(), 4);
  CHECK(c_col[Coord{1, 2, 0}] == m[2 * 4 + 1]);
  CHECK(Bias<PerRow, float>{row.data()}(1.0f, at) == 31.0f);
  CHECK(Bias<PerColumn, float>{col.data()}(1.0f, at) == 5.0f);
  CHECK(ScaleShift<PerColumn, float>{col.data(), row.data()}(2.0f, at) == 2.0f * 4.0f + 40.0f);
  CHECK(ResidualAdd<float>{c_row}(0.5f, at) == 1023.5f);
  CHECK(Relu{}(-2.0f, at) == 0.0f);
  CHECK(Relu{}(2.5f, at) == 2.5f);
  CHECK(Clamp{-1.0f, 1.0f}(3.0f, at) == 1.0f);
  CHECK(Clamp{-1.0f, 1.0f}(-3.0f, at) == -1.0f);
  for (float x : {-3.0f, -0.5f, 0.0f, 0.7f, 4.0f}) {
    double const xd = x;
    CHECK(GeluErf{}(x, at) == Approx(0.5 * xd * (1 + std::erf(xd / std::sqrt(2.0)))).margin(1e-6));
    CHECK(GeluTanh{}(x, at) ==
          Approx(0.5 * xd * (1 + std::tanh(std::sqrt(2 / M_PI) * (xd + 0.044715 * xd * xd * xd)))).margin(1e-6));
    CHECK(Sigmoid{}(x, at) == Approx(1 / (1 + std::exp(-xd))).margin(1e-6));
    CHECK(Silu{}(x, at) == Approx(xd / (1 + std::exp(-xd))).margin(1e-6));
  }
}

TEST_CASE("a chain applies its stages in order, and Optional stages switch at run time", "[epilogue]") {
  Coord const at{0, 1, 0};
  std::vector<float> bias{5.0f, -5.0f};
  using BiasThenRelu = Chain<Bias<PerColumn, float>, Relu>;
  using ReluThenBias = Chain<Relu, Bias<PerColumn, float>>;
  CHECK(BiasThenRelu{{bias.data()}, {}}(2.0f, at) == 0.0f);   // relu(2 - 5)
  CHECK(ReluThenBias{{}, {bias.data()}}(2.0f, at) == -3.0f);  // relu(2) - 5
  // A one-field stage from its value, without braces; a one-stage chain likewise.
  CHECK(BiasThenRelu{bias.data(), {}}(2.0f, at) == 0.0f);
  CHECK(ReluThenBias{{}, bias.data()}(2.0f, at) == -3.0f);
  CHECK(Chain<Bias<PerColumn, float>>{bias.data()}(2.0f, at) == -3.0f);
  CHECK(Identity{}(7.25f, at) == 7.25f);
  STATIC_REQUIRE(BiasThenRelu::size == 2);
  // The named builder: stage I from argument I, the parameterless stages after the last empty.
  float const* const b = bias.data();
  CHECK(BiasThenRelu::make(b)(2.0f, at) == 0.0f);
  CHECK(get<0>(BiasThenRelu::make(b).stages).ptr == b);
  CHECK(Identity::make()(7.25f, at) == 7.25f);
  // A stage of several fields is passed whole; one value would leave the others empty.
  std::vector<float> scale{2.0f, 3.0f}, shift{1.0f, 1.0f};
  using Affine = Chain<ScaleShift<PerColumn>, Relu>;
  CHECK(Affine::make(ScaleShift<PerColumn>{scale.data(), shift.data()})(2.0f, at) == 7.0f);  // 2 * 3 + 1

  Chain<Optional<LinearCombination<float>>, Optional<Relu>> c;
  CHECK(c(-4.0f, at) == -4.0f);  // all off: the identity
  c = {{{3.0f, 0.0f, {}}, true}, {{}, false}};
  CHECK(c(-4.0f, at) == -12.0f);
  c = {{{3.0f, 0.0f, {}}, true}, {{}, true}};
  CHECK(c(-4.0f, at) == 0.0f);
}

TEST_CASE("column vectors: a chain numbers its stages' vectors, and staged values give the unstaged result", "[epilogue]") {
  // Per-column vectors of 6 columns: a bias, a scale and a shift, and a per-row bias (not one).
  std::vector<float> bias{0.5f, -1.25f, 2.0f, 3.5f, -0.75f, 1.0f}, scale{2.0f, -0.5f, 1.5f, 0.25f, 3.0f, -2.0f},
      shift{-3.0f, 0.125f, 4.0f, -1.5f, 0.0f, 2.25f}, row_bias{7.0f, -7.0f, 9.0f};
  using Chn = Chain<Bias<PerRow, float>, Optional<Bias<PerColumn, float>>, Relu, ScaleShift<PerColumn, float>, GeluTanh>;
  STATIC_REQUIRE(column_vectors_of<Bias<PerColumn, float>> == 1);
  STATIC_REQUIRE(column_vectors_of<Bias<PerRow, float>> == 0);
  STATIC_REQUIRE(column_vectors_of<ScaleShift<PerColumn, float>> == 2);
  STATIC_REQUIRE(column_vectors_of<Relu> == 0);
  STATIC_REQUIRE(Chn::column_vectors == 3);
  STATIC_REQUIRE(Identity::column_vectors == 0);
  STATIC_REQUIRE(ColumnStage<Optional<ScaleShift<PerColumn, float>>>);
  // A per-row stage has no column form to call by mistake.
  STATIC_REQUIRE(!ColumnStage<Bias<PerRow, float>>);
  STATIC_REQUIRE(!ColumnStage<ScaleShift<PerRow, float>>);
  for (bool const on : {true, false}) {
    Chn const c{{row_bias.data()}, {{bias.data()}, on}, {}, {scale.data(), shift.data()}, {}};
    // The vectors in stage order: the bias (0 when switched off: not read), then scale and shift.
    for (int col = 0; col < 6; ++col) {
      CHECK(c.column_value(0, col) == (on ? bias[std::size_t(col)] : 0.0f));
      CHECK(c.column_value(1, col) == scale[std::size_t(col)]);
      CHECK(c.column_value(2, col) == shift[std::size_t(col)]);
    }
    // Staged as a kernel lays them out (vector j of a tile's 6 columns at j * 6), every element
    // evaluates to the unstaged chain's value, bit for bit.
    std::vector<float> staged(3 * 6);
    for (int j = 0; j < 3; ++j)
      for (int col = 0; col < 6; ++col) staged[std::size_t(j * 6 + col)] = c.column_value(j, col);
    for (int row = 0; row < 3; ++row)
      for (int col = 0; col < 6; ++col)
        for (float const x : {-2.5f, -0.3f, 0.0f, 0.7f, 4.0f}) {
          Coord const at{row, col, 0};
          CHECK(c(x, at, ColumnValues{staged.data() + col, 6}) == c(x, at));
        }
  }
}

TEST_CASE("Coord::in_batch: batch entries as column blocks of one output (a grouped convolution's channels)", "[epilogue]") {
  using epilogue::Coord;
  // batch_columns = 0: a batched GEMM's own coordinates.
  Coord c = Coord::in_batch(5, 7, 3, 0);
  CHECK((c.row == 5 && c.col == 7 && c.batch == 3));
  // Group 3 of 24 channels each: its column 7 is the output's channel 79 of batch 0.
  c = Coord::in_batch(5, 7, 3, 24);
  CHECK((c.row == 5 && c.col == 79 && c.batch == 0));
  // A per-column bias then reads the output channel's value.
  std::vector<float> bias(96);
  for (int i = 0; i < 96; ++i) bias[std::size_t(i)] = float(i);
  epilogue::Bias<epilogue::PerColumn> const b{bias.data()};
  CHECK(b(0.5f, Coord::in_batch(0, 7, 3, 24)) == 79.5f);
  static_assert(Coord::in_batch(1, 2, 3, 4).col == 14, "in_batch is constexpr");
}

TEST_CASE("outputs convert with round-to-nearest-even, saturating for integers and fp8", "[epilogue][convert]") {
  CHECK(convert_output<std::int8_t>(300.7f) == 127);
  CHECK(convert_output<std::int8_t>(-1000.0f) == -128);
  CHECK(convert_output<std::int8_t>(2.5f) == 2);  // to even
  CHECK(convert_output<std::int8_t>(3.5f) == 4);
  CHECK(convert_output<std::int8_t>(std::numeric_limits<float>::quiet_NaN()) == 0);
  CHECK(convert_output<std::uint8_t>(-3.0f) == 0);
  CHECK(convert_output<std::int32_t>(3e10f) == 2147483520);
  CHECK(convert_output<std::int32_t>(-3e10f) == std::numeric_limits<std::int32_t>::min());
  CHECK(convert_output<float>(1.2345f) == 1.2345f);
  CHECK(convert_output<bfloat16_t>(1.0f + 1.0f / 256).bits() == bfloat16_t(1.0f).bits());  // tie: to even
  CHECK(convert_output<float8_e4m3_t>(1e6f).to_float() == 448.0f);                      // saturates to the largest finite
  CHECK(convert_output<float8_e4m3_t>(-1e6f).to_float() == -448.0f);
  CHECK(ConvertTo<std::int8_t>{}(200.0f, Coord{0, 0, 0}) == 127.0f);  // rounds and goes on in float
}

// The pair forms (the host model of cvt.rn.{bf16,f16}x2): each half as convert_output, the first
// value in the low half of the packed word.
TEST_CASE("pairs of 16-bit outputs convert as two single outputs, packed low half first", "[epilogue][convert]") {
  float const values[] = {1.0f + 1.0f / 256, -3.3f, 65520.0f, 1e-30f, -0.0f, 123.456f};
  for (float lo : values)
    for (float hi : values) {
      INFO(lo << ", " << hi);
      std::uint32_t const b = convert_output_packed<bfloat16_t>(lo, hi), h = convert_output_packed<half_t>(lo, hi);
      CHECK(b == (std::uint32_t(convert_output<bfloat16_t>(lo).bits()) | std::uint32_t(convert_output<bfloat16_t>(hi).bits()) << 16));
      CHECK(h == (std::uint32_t(convert_output<half_t>(lo).bits()) | std::uint32_t(convert_output<half_t>(hi).bits()) << 16));
      half_t h0, h1;
      convert_output_pair(lo, hi, h0, h1);
      CHECK(h0.bits() == convert_output<half_t>(lo).bits());
      CHECK(h1.bits() == convert_output<half_t>(hi).bits());
    }
}

TEST_CASE("matrix layout tags", "[core][layout]") {
  STATIC_REQUIRE(RowMajor::row_major);
  STATIC_REQUIRE(!ColumnMajor::row_major);
  STATIC_REQUIRE(is_matrix_layout_v<RowMajor>);
  STATIC_REQUIRE(is_matrix_layout_v<ColMajor>);
  STATIC_REQUIRE(!is_matrix_layout_v<int>);
}

TEST_CASE("epilogue source matrices: stages declare theirs; a chain of two reads each itself", "[epilogue]") {
  STATIC_REQUIRE(source_matrices_of<ResidualAdd<float>> == 1);
  STATIC_REQUIRE(source_matrices_of<LinearCombination<float>> == 1);
  STATIC_REQUIRE(source_matrices_of<Relu> == 0);
  using One = Chain<Bias<PerColumn, float>, ResidualAdd<float>, Relu>;
  using Two = Chain<LinearCombination<float>, ResidualAdd<float>>;
  STATIC_REQUIRE(One::source_matrices == 1);
  STATIC_REQUIRE(std::is_same_v<One::Source, float>);
  STATIC_REQUIRE(Two::source_matrices == 2);  // allowed: no kernel stages them, each stage reads its own
  std::vector<float> c{1, 2, 3, 4}, r{10, 20, 30, 40}, bias{0.5f, 0.25f};
  Coord const at{1, 0, 0};
  Two const two{{2.0f, 0.5f, MatrixRef<float>::row_major(c.data(), 2)}, {MatrixRef<float>::row_major(r.data(), 2)}};
  CHECK(two(1.0f, at) == 2.0f + 0.5f * 3.0f + 30.0f);
  One const one = One::make(bias.data(), MatrixRef<float>::row_major(r.data(), 2));
  CHECK(one.source().ptr == r.data());
  CHECK(one(1.0f, at, ColumnValues{bias.data(), 2}, SourceValue{30.0f}) == one(1.0f, at));  // staged and read alike
  CHECK(one(-100.0f, at, SourceValue{30.0f}) == 0.0f);                                       // ReLU
  LinearCombination<float> const beta0{2.0f, 0.0f, MatrixRef<float>::row_major(c.data(), 2)};
  CHECK(beta0.source().ptr == nullptr);  // beta = 0: C is not read, so not staged
  // An Optional residual forwards its source matrix: null while disabled, and x passes through.
  using Opt = Chain<Optional<ResidualAdd<float>>, Relu>;
  STATIC_REQUIRE(Opt::source_matrices == 1);
  STATIC_REQUIRE(std::is_same_v<Opt::Source, float>);
  Opt on{{{MatrixRef<float>::row_major(r.data(), 2)}, true}, {}}, off{{{MatrixRef<float>::row_major(r.data(), 2)}, false}, {}};
  CHECK(on.source().ptr == r.data());
  CHECK(off.source().ptr == nullptr);
  CHECK(on(1.0f, at, SourceValue{30.0f}) == on(1.0f, at));
  CHECK(on(1.0f, at, SourceValue{30.0f}) == 31.0f);
  CHECK(off(1.0f, at, SourceValue{30.0f}) == 1.0f);
}
