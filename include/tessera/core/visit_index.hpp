// visit_index<N>(i, f): f.template operator()<i>() for a run-time index i in [0, N): how a table of
// Configs chosen at run time (gemm::Tuned, conv::Tuned) reaches the one compile-time instantiation
// that runs. Returns f's result, or a value-initialized one when i is outside [0, N).
//
//   int const i = select(args);                     // a run-time entry
//   Status s = visit_index<N>(i, [&]<int I>() { return Gemm<Cfg<I>>{}.run(args); });
#pragma once

#include <utility>

namespace tessera {

template <int N, class F>
auto visit_index(int i, F&& f) {
  return [&]<int... I>(std::integer_sequence<int, I...>) {
    using R = decltype(f.template operator()<0>());
    R r{};
    ((i == I ? (void)(r = f.template operator()<I>()) : void()), ...);
    return r;
  }(std::make_integer_sequence<int, N>{});
}

}  // namespace tessera
