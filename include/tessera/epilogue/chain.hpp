// Composable epilogues: a Chain of stages applied to each accumulator, in order, knowing the
// element's (row, col) in the output and its batch.
//
//   using Epi = Chain<LinearCombination<bfloat16>, Bias<PerColumn, bfloat16>, GeluTanh>;
//   Epi epi{{alpha, beta, c_ptr, ldc, 1}, {bias_ptr}, {}};     // run-time parameters, stage by stage
//   float y = epi(acc, Coord{row, col, batch});
//
// A stage is any type with `TESSERA_HD float operator()(float x, Coord const&) const`: write your
// own (examples/02_custom_epilogue). Stages run in float; the store converts to the output type.
//
// Column vectors: a stage that reads vectors indexed by the output's column (a per-column bias,
// scale or shift) may declare them, so that a kernel loads a tile's slice of each once into shared
// memory and the stage reads its values from there instead of every thread loading its columns'
// values in the epilogue (the sm90 GEMM does):
//
//   static constexpr int column_vectors = 1;                     // how many vectors it reads
//   TESSERA_HD float column_value(int j, int col) const;         // vector j at column col, from memory
//   TESSERA_HD float operator()(float x, Coord const&, ColumnValues v) const;  // v[j]: vector j at c.col
//
// Both calls of a stage give the same result; the chain numbers its stages' vectors in order.
//
// Source matrices: a stage that reads a matrix of the output's shape (a residual, C for beta)
// may declare it, so that a kernel loads a tile's block of it in bulk (coalesced copies into
// shared memory, then each thread its fragment's values) instead of every thread loading its own
// elements, a warp's load touching eight rows at once (the sm90 GEMM does, for a 16-bit source
// and output; elsewhere the stage reads its values itself):
//
//   using Source = bfloat16_t;                                 // its element type
//   static constexpr int source_matrices = 1;
//   TESSERA_HD MatrixRef<Source> source() const;               // where it is (ptr null: not staged;
//                                                              // the stage's own call then decides)
//   TESSERA_HD float operator()(float x, Coord const&, SourceValue v) const;  // v.value: its value at c
//
// A kernel stages a chain's source matrix where the chain has exactly one (C and a residual both:
// each stage reads its own, element by element).
#pragma once

#include <concepts>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tessera/core/config.hpp"
#include "tessera/core/tuple.hpp"

namespace tessera::epilogue {

// Where an accumulator lands: its row and column in the output, and the batch it belongs to.
struct Coord {
  int row;
  int col;
  int batch;
  // The coordinate a kernel gives the chain for (row, col) of batch entry `batch` when the batch
  // entries are column blocks of one output (a grouped convolution: entry g's column c is output
  // channel c + g batch_columns): then (row, c + batch batch_columns) of batch 0. With
  // batch_columns = 0, the entry's own coordinate (a batched GEMM).
  TESSERA_HD static constexpr Coord in_batch(int row, int col, int batch, int batch_columns) {
    return batch_columns == 0 ? Coord{row, col, batch} : Coord{row, col + batch * batch_columns, 0};
  }
};

// A stage: float in, float out, with the element's coordinate.
template <class S>
concept Stage = requires(S const& s, float x, Coord c) {
  { s(x, c) } -> std::convertible_to<float>;
};

// The staged values of an element's column: v[j] is vector j's value there (vectors `stride`
// floats apart).
struct ColumnValues {
  float const* at;
  int stride;
  TESSERA_HD float operator[](int j) const { return at[j * stride]; }
  TESSERA_HD ColumnValues from(int j) const { return {at + j * stride, stride}; }
};

// The value of an element's source matrix, loaded by the kernel.
struct SourceValue {
  float value;
};

// The source matrices a stage (or chain) declares: 0 unless it has `source_matrices`.
template <class S>
inline constexpr int source_matrices_of = [] {
  if constexpr (requires { { S::source_matrices } -> std::convertible_to<int>; }) return int(S::source_matrices);
  else return 0;
}();

// A stage that declares a source matrix and reads it both ways.
template <class S>
concept SourceStage = Stage<S> && requires(S const& s, float x, Coord c, SourceValue v) {
  typename S::Source;
  s.source();
  { s(x, c, v) } -> std::convertible_to<float>;
};

// The column vectors a stage (or chain) declares: 0 unless it has `column_vectors`.
template <class S>
inline constexpr int column_vectors_of = [] {
  if constexpr (requires { { S::column_vectors } -> std::convertible_to<int>; }) return int(S::column_vectors);
  else return 0;
}();

// A stage that declares column vectors and reads them both ways.
template <class S>
concept ColumnStage = Stage<S> && requires(S const& s, float x, Coord c, ColumnValues v, int j) {
  { s.column_value(j, j) } -> std::convertible_to<float>;
  { s(x, c, v) } -> std::convertible_to<float>;
};

namespace detail {
// Converts to anything (declared only): probes whether an aggregate has a second field.
struct AnyValue {
  template <class T>
  operator T() const;
};

// A makes stage S: A is S, or the one value of a stage with one field (a stage of more fields made
// from one value would leave the others empty: a ScaleShift's shift, an Optional's switch).
template <class A, class S>
concept MakesStage = std::is_same_v<A, S> || (requires(A const& a) { S{a}; } && !requires(A const& a) { S{a, AnyValue{}}; });

// One initializer of a Chain's stage: the stage, {} (the stage empty) or the one value of a stage
// of one field (Bias's pointer). Anything else is one error that says so.
template <class S>
struct StageInit {
  S stage{};
  constexpr StageInit() = default;
  TESSERA_HD constexpr StageInit(S const& s) : stage(s) {}
  template <class A>
    requires(!std::is_same_v<A, S>)
  TESSERA_HD constexpr StageInit(A const& a) : stage(from(a)) {}

 private:
  template <class A>
  TESSERA_HD static constexpr S from(A const& a) {
    constexpr bool makes = MakesStage<A, S>;
    static_assert(makes, "epilogue::Chain: an initializer cannot make its stage (the instantiation above names the stage S and "
                         "the argument type A: a float* for a bfloat16_t Bias, say); give each stage, in the chain's order, as "
                         "the stage itself, {} or the value of a stage of one field (Epi{d_bias, {}}), or use Epi::make(d_bias)");
    if constexpr (makes) return S{a};
    else return S{};
  }
};

// The element type of the first stage that declares a source matrix (void: none does).
template <class S, bool = (source_matrices_of<S> > 0)>
struct OwnSource {
  using type = void;
};
template <class S>
struct OwnSource<S, true> {
  using type = typename S::Source;
};
template <class... S>
struct SourceOf {
  using type = void;
};
template <class S0, class... S>
struct SourceOf<S0, S...> {
  using type = std::conditional_t<(source_matrices_of<S0> > 0), typename OwnSource<S0>::type, typename SourceOf<S...>::type>;
};

// Any initializers but one per stage (Epi{{d_bias}} for a chain of two stages): one error.
struct TooFewInitializers {
  template <class... A>
  TESSERA_HD constexpr TooFewInitializers(A const&...) {}
};
}  // namespace detail

template <class... Stages>
struct Chain {
  static_assert((Stage<Stages> && ...),
                "epilogue::Chain: every stage needs `TESSERA_HD float operator()(float, Coord const&) const`; "
                "see epilogue/activations.hpp for examples");
  static_assert(((column_vectors_of<Stages> == 0 || ColumnStage<Stages>) && ...),
                "epilogue::Chain: a stage that declares column_vectors needs `float column_value(int j, int col) const` "
                "and `float operator()(float, Coord const&, ColumnValues) const`; see Bias in epilogue/tensor_stages.hpp");
  static_assert(((source_matrices_of<Stages> == 0 || SourceStage<Stages>) && ...),
                "epilogue::Chain: a stage that declares source_matrices needs `using Source`, `MatrixRef<Source> source() const` "
                "and `float operator()(float, Coord const&, SourceValue) const`; see ResidualAdd in epilogue/tensor_stages.hpp");
  Tuple<Stages...> stages;

  constexpr Chain() = default;
  // One initializer per stage, in order: the stage or its braced fields ({d_bias}, {}).
  TESSERA_HD constexpr Chain(Stages const&... s) requires(sizeof...(Stages) > 0) : stages(s...) {}
  // Where the above does not apply: the value of a stage of one field (Epi{d_bias, {}}), or one
  // error that names the stage and the argument. (A template: for initializers both take, the
  // constructor above wins.)
  template <class Tag = void>
    requires(sizeof...(Stages) > 0)
  TESSERA_HD constexpr Chain(detail::StageInit<Stages> const&... s) : stages(s.stage...) {}
  template <class Tag = void>
    requires(sizeof...(Stages) >= 2)
  TESSERA_HD constexpr Chain(detail::TooFewInitializers) {
    static_assert(dependent_false<Tag>, "epilogue::Chain: not one initializer per stage; give every stage in the chain's "
                                                "order (Epi{d_bias, {}}), or use Epi::make(d_bias), which leaves parameterless "
                                                "stages at the end empty");
  }

  TESSERA_HD float operator()(float x, Coord const& c) const {
    return fold(stages, x, [&c](float acc, auto const& stage) { return float(stage(acc, c)); });
  }

  // The stages' column vectors, numbered in stage order.
  static constexpr int column_vectors = (column_vectors_of<Stages> + ... + 0);

  // Vector j's value at column col, read from memory (j < column_vectors).
  TESSERA_HD float column_value(int j, int col) const { return column_value(j, col, std::index_sequence_for<Stages...>{}); }

  // The chain with the column vectors' values staged: v[j] is vector j's value at c.col.
  TESSERA_HD float operator()(float x, Coord const& c, ColumnValues v) const {
    return staged(x, c, v, std::index_sequence_for<Stages...>{});
  }

  // The stages' source matrices; where there is one, its element type (else the first's, or void)
  // and where it is.
  static constexpr int source_matrices = (source_matrices_of<Stages> + ... + 0);
  using Source = typename detail::SourceOf<Stages...>::type;
  TESSERA_HD auto source() const
    requires(source_matrices == 1)
  {
    return source_of(std::index_sequence_for<Stages...>{});
  }

  // The chain with the column vectors staged and the source matrix's value at c loaded: the source
  // stage reads `source`, the column stages v.
  TESSERA_HD float operator()(float x, Coord const& c, ColumnValues v, SourceValue source) const {
    return staged(x, c, v, source, std::index_sequence_for<Stages...>{});
  }

  // The same with the column vectors read from memory.
  TESSERA_HD float operator()(float x, Coord const& c, SourceValue source) const {
    return fold(stages, x, [&c, source](float acc, auto const& stage) {
      if constexpr (source_matrices_of<std::remove_cvref_t<decltype(stage)>> > 0) return float(stage(acc, c, source));
      else return float(stage(acc, c));
    });
  }

  static constexpr int size = int(sizeof...(Stages));

  // The chain from its stages' arguments, in the chain's order: argument I is stage I itself or,
  // for a stage of one field (Bias), that field's value; the stages past the last argument, which
  // must have no parameters (GeluTanh, Relu), are made empty. A wrong argument or a missing one is
  // one error:
  //   using Epi = Chain<Bias<PerColumn, bfloat16_t>, GeluTanh>;
  //   args.epilogue = Epi::make(d_bias);          // d_bias: bfloat16_t const*
  template <class... Args>
  static constexpr Chain make(Args const&... args) {
    constexpr bool fits = sizeof...(Args) <= sizeof...(Stages);
    static_assert(fits, "epilogue::Chain::make: more arguments than stages; pass one per stage, in the chain's order");
    if constexpr (fits) return make_stages(std::index_sequence_for<Stages...>{}, args...);
    else return Chain{};
  }

 private:
  template <std::size_t... Is, class... Args>
  static constexpr Chain make_stages(std::index_sequence<Is...>, Args const&... args) {
    return Chain{stage_from<Is, std::tuple_element_t<Is, std::tuple<Stages...>>>(args...)...};
  }
  // Stage I (type S) from argument I, or empty where there is none.
  template <std::size_t I, class S, class... Args>
  static constexpr S stage_from(Args const&... args) {
    if constexpr (I < sizeof...(Args)) {
      using A = std::tuple_element_t<I, std::tuple<Args...>>;
      constexpr bool makes = detail::MakesStage<A, S>;
      static_assert(makes, "epilogue::Chain::make: an argument cannot make its stage (stage_from<I, Stage, Arguments...> "
                           "above names the stage, its index and the argument types); pass the stage's one value (a "
                           "bfloat16_t const* for Bias<PerColumn, bfloat16_t>) or, for a stage of several, the stage "
                           "itself (ScaleShift<PerColumn>{scale, shift})");
      if constexpr (makes) return S{std::get<I>(std::tie(args...))};
      else return S{};
    } else {
      constexpr bool empty = std::is_empty_v<S>;
      static_assert(empty, "epilogue::Chain::make: a stage with parameters has no argument (stage_from<I, Stage, ...> above "
                           "names it); pass one argument per stage up to the last with parameters");
      return S{};
    }
  }

  // The number of stage I's first vector.
  template <std::size_t I>
  static constexpr int first_vector = [] {
    int n = 0, i = 0;
    ((n += i++ < int(I) ? column_vectors_of<Stages> : 0), ...);
    return n;
  }();

  template <std::size_t... Is>
  TESSERA_HD float column_value(int j, int col, std::index_sequence<Is...>) const {
    float y = 0.0f;
    ((column_vectors_of<Stages> > 0 && j >= first_vector<Is> && j < first_vector<Is> + column_vectors_of<Stages>
          ? void(y = column_value_of(get<Is>(stages), j - first_vector<Is>, col))
          : void()),
     ...);
    return y;
  }
  template <class S>
  TESSERA_HD static float column_value_of(S const& s, int j, int col) {
    if constexpr (column_vectors_of<S> > 0) return float(s.column_value(j, col));
    else return 0.0f;
  }

  template <std::size_t... Is>
  TESSERA_HD float staged(float x, Coord const& c, ColumnValues v, std::index_sequence<Is...>) const {
    ((x = staged_stage(get<Is>(stages), x, c, v.from(first_vector<Is>))), ...);
    return x;
  }
  template <class S>
  TESSERA_HD static float staged_stage(S const& s, float x, Coord const& c, ColumnValues v) {
    if constexpr (column_vectors_of<S> > 0) return float(s(x, c, v));
    else return float(s(x, c));
  }
  template <std::size_t... Is>
  TESSERA_HD float staged(float x, Coord const& c, ColumnValues v, SourceValue source, std::index_sequence<Is...>) const {
    ((x = staged_stage(get<Is>(stages), x, c, v.from(first_vector<Is>), source)), ...);
    return x;
  }
  template <class S>
  TESSERA_HD static float staged_stage(S const& s, float x, Coord const& c, ColumnValues v, SourceValue source) {
    if constexpr (source_matrices_of<S> > 0) return float(s(x, c, source));
    else return staged_stage(s, x, c, v);
  }

  // The index of the source stage (sizeof...(Stages) where there is none).
  static constexpr std::size_t first_source = [] {
    std::size_t i = 0, found = sizeof...(Stages);
    ((found = found == sizeof...(Stages) && source_matrices_of<Stages> > 0 ? i : found, ++i), ...);
    return found;
  }();
  template <std::size_t... Is>
  TESSERA_HD auto source_of(std::index_sequence<Is...>) const {
    return get<first_source>(stages).source();
  }
};

// The chain with no stage: the accumulator unchanged (then converted by the store).
using Identity = Chain<>;

// A stage switched on or off at run time, without another kernel: the disabled stage passes its
// input through. Costs one uniform branch per element.
template <class S>
struct Optional {
  S stage{};
  bool enabled = false;
  TESSERA_HD float operator()(float x, Coord const& c) const { return enabled ? float(stage(x, c)) : x; }

  // The stage's column vectors; a disabled stage reads none (its values are 0, and unused).
  static constexpr int column_vectors = column_vectors_of<S>;
  TESSERA_HD float column_value(int j, int col) const
    requires(column_vectors > 0)
  {
    return enabled ? float(stage.column_value(j, col)) : 0.0f;
  }
  TESSERA_HD float operator()(float x, Coord const& c, ColumnValues v) const
    requires(column_vectors > 0)
  {
    return enabled ? float(stage(x, c, v)) : x;
  }

  // The stage's source matrix; a disabled stage's is null (none read), and passes x through.
  using Source = typename detail::OwnSource<S>::type;
  static constexpr int source_matrices = source_matrices_of<S>;
  TESSERA_HD auto source() const
    requires(source_matrices > 0)
  {
    auto r = stage.source();
    if (!enabled) r.ptr = nullptr;
    return r;
  }
  TESSERA_HD float operator()(float x, Coord const& c, SourceValue v) const
    requires(source_matrices > 0)
  {
    return enabled ? float(stage(x, c, v)) : x;
  }
};

}  // namespace tessera::epilogue
