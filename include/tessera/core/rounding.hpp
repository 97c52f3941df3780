// Rounding constants of the element types, for error bounds (the tests' and the profiler's
// comparisons with a reference).
//
//   unit_roundoff<bfloat16>() == 2^-8        half an ulp at 1; 0 for exact integer arithmetic
//   subnormal_spacing<half>() == 2^-24       where relative rounding ends; 0 for integers
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "tessera/core/numeric_types.hpp"

namespace tessera {

namespace detail {
// The significand's bits after the point and the smallest normal exponent: from a NarrowFloat's
// format, from numeric_limits for float; {-1, 0} for integers (exact arithmetic).
template <class T>
constexpr int fraction_bits() {
  if constexpr (std::is_same_v<T, float>) return std::numeric_limits<float>::digits - 1;
  else if constexpr (requires { T::format_type::mantissa_bits; }) return T::format_type::mantissa_bits;
  else return -1;
}
template <class T>
constexpr int min_normal_exponent() {
  if constexpr (std::is_same_v<T, float>) return std::numeric_limits<float>::min_exponent - 1;
  else if constexpr (requires { T::format_type::bias; }) return 1 - T::format_type::bias;
  else return 0;
}
}  // namespace detail

// Half an ulp at 1: 2^-(fraction bits + 1).
template <class T>
double unit_roundoff() {
  constexpr int f = detail::fraction_bits<T>();
  return f < 0 ? 0.0 : std::ldexp(1.0, -(f + 1));
}

// The spacing of the subnormals (the smallest positive value): a value near zero may round to
// either neighbour when the accumulation moves it slightly, so relative bounds end here.
template <class T>
double subnormal_spacing() {
  constexpr int f = detail::fraction_bits<T>();
  return f < 0 ? 0.0 : std::ldexp(1.0, detail::min_normal_exponent<T>() - f);
}

}  // namespace tessera
