// Rounding constants of the element types, for error bounds (the tests' and the profiler's
// comparisons with a reference).
//
//   unit_roundoff<bfloat16>() == 2^-8        half an ulp at 1; 0 for exact integer arithmetic
//   subnormal_spacing<half>() == 2^-24       where relative rounding ends; 0 for integers
#pragma once

#include <cmath>
#include <type_traits>

#include "tessera/core/numeric_types.hpp"

namespace tessera {

template <class T>
double unit_roundoff() {
  if constexpr (std::is_same_v<T, bfloat16>) return std::ldexp(1.0, -8);
  else if constexpr (std::is_same_v<T, half>) return std::ldexp(1.0, -11);
  else if constexpr (std::is_same_v<T, float>) return std::ldexp(1.0, -24);
  else if constexpr (std::is_same_v<T, float8_e4m3>) return std::ldexp(1.0, -4);
  else if constexpr (std::is_same_v<T, float8_e5m2>) return std::ldexp(1.0, -3);
  else return 0.0;
}

// A value near zero may round to either subnormal neighbour when the accumulation moves it slightly.
template <class T>
double subnormal_spacing() {
  if constexpr (std::is_same_v<T, bfloat16>) return std::ldexp(1.0, -133);
  else if constexpr (std::is_same_v<T, half>) return std::ldexp(1.0, -24);
  else if constexpr (std::is_same_v<T, float>) return std::ldexp(1.0, -149);
  else if constexpr (std::is_same_v<T, float8_e4m3>) return std::ldexp(1.0, -9);
  else if constexpr (std::is_same_v<T, float8_e5m2>) return std::ldexp(1.0, -16);
  else return 0.0;
}

}  // namespace tessera
