// Composable epilogues: a Chain of stages applied to each accumulator, in order, knowing the
// element's (row, col) in the output and its batch.
//
//   using Epi = Chain<LinearCombination<bfloat16>, Bias<PerColumn, bfloat16>, GeluTanh>;
//   Epi epi{{alpha, beta, c_ptr, ldc, 1}, {bias_ptr}, {}};     // run-time parameters, stage by stage
//   float y = epi(acc, Coord{row, col, batch});
//
// A stage is any type with `TESSERA_HD float operator()(float x, Coord const&) const`: write your
// own (examples/02_custom_epilogue). Stages run in float; the store converts to the output type.
#pragma once

#include "tessera/core/config.hpp"
#include "tessera/core/tuple.hpp"

namespace tessera::epilogue {

// Where an accumulator lands: its row and column in the output, and the batch it belongs to.
struct Coord {
  int row;
  int col;
  int batch;
};

// A stage: float in, float out, with the element's coordinate.
template <class S>
concept Stage = requires(S const& s, float x, Coord c) {
  { s(x, c) } -> std::convertible_to<float>;
};

template <class... Stages>
struct Chain {
  static_assert((Stage<Stages> && ...),
                "epilogue::Chain: every stage needs `TESSERA_HD float operator()(float, Coord const&) const`; "
                "see epilogue/activations.hpp for examples");
  Tuple<Stages...> stages;

  constexpr Chain() = default;
  TESSERA_HD constexpr Chain(Stages const&... s) requires(sizeof...(Stages) > 0) : stages(s...) {}

  TESSERA_HD float operator()(float x, Coord const& c) const {
    return fold(stages, x, [&c](float acc, auto const& stage) { return float(stage(acc, c)); });
  }

  static constexpr int size = int(sizeof...(Stages));
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
};

}  // namespace tessera::epilogue
