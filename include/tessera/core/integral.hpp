// Compile-time integers that mix freely with run-time ones.
//
// `Int<4>{}` is an empty type whose value is known to the compiler; `int` is a run-time value.
// Arithmetic on two static values stays static (`Int<2>{} * Int<3>{}` is `Int<6>`), anything
// involving a run-time value decays to that value's type. Layouts built from static extents
// therefore fold to constants, while the same code also accepts run-time extents.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "tessera/core/config.hpp"

namespace tessera {

// A constant of any integral (or bool) type.
template <auto V>
struct C {
  using value_type = decltype(V);
  using type = C<V>;
  static constexpr value_type value = V;
  TESSERA_HD constexpr operator value_type() const noexcept { return V; }
  TESSERA_HD constexpr value_type operator()() const noexcept { return V; }
};

template <int N>
using Int = C<int(N)>;
template <bool B>
using Bool = C<B>;
using True = Bool<true>;
using False = Bool<false>;

// Short names for the constants that occur everywhere.
using _0 = Int<0>;
using _1 = Int<1>;
using _2 = Int<2>;
using _4 = Int<4>;
using _8 = Int<8>;
using _16 = Int<16>;
using _32 = Int<32>;
using _64 = Int<64>;
using _128 = Int<128>;

// ---- traits -------------------------------------------------------------------------------

template <class T>
struct is_constant_t : std::false_type {};
template <auto V>
struct is_constant_t<C<V>> : std::true_type {};
template <class T>
inline constexpr bool is_constant_v = is_constant_t<std::remove_cvref_t<T>>::value;

// True for run-time integers and for C<V>: the leaves of shapes and strides.
template <class T>
inline constexpr bool is_integral_v =
    (std::is_integral_v<std::remove_cvref_t<T>> && !std::is_same_v<std::remove_cvref_t<T>, bool>) ||
    is_constant_v<T>;

// is_constant_value<N, T>: T is the static constant N (of any integral type).
template <auto N, class T>
inline constexpr bool is_constant_value_v = [] {
  if constexpr (is_constant_v<T>) {
    return std::remove_cvref_t<T>::value == N;
  } else {
    return false;
  }
}();

// ---- arithmetic: static op static -> static --------------------------------------------------

#define TESSERA_C_BINARY_OP(OP)                                                   \
  template <auto A, auto B>                                                       \
  TESSERA_HD constexpr C<(A OP B)> operator OP(C<A>, C<B>) noexcept {             \
    return {};                                                                    \
  }

TESSERA_C_BINARY_OP(+)
TESSERA_C_BINARY_OP(-)
TESSERA_C_BINARY_OP(*)
TESSERA_C_BINARY_OP(&)
TESSERA_C_BINARY_OP(|)
TESSERA_C_BINARY_OP(^)
TESSERA_C_BINARY_OP(<<)
TESSERA_C_BINARY_OP(>>)
TESSERA_C_BINARY_OP(==)
TESSERA_C_BINARY_OP(!=)
TESSERA_C_BINARY_OP(<)
TESSERA_C_BINARY_OP(<=)
TESSERA_C_BINARY_OP(>)
TESSERA_C_BINARY_OP(>=)
TESSERA_C_BINARY_OP(&&)
TESSERA_C_BINARY_OP(||)
#undef TESSERA_C_BINARY_OP

// Division and remainder check the divisor in the body, so that a static zero is a readable error
// rather than a silently non-viable overload.
template <auto A, auto B>
TESSERA_HD constexpr auto operator/(C<A>, C<B>) noexcept {
  static_assert(B != 0, "tessera::C: static division by zero; check the divisor's extent");
  return C<(B != 0 ? A / B : A)>{};
}
template <auto A, auto B>
TESSERA_HD constexpr auto operator%(C<A>, C<B>) noexcept {
  static_assert(B != 0, "tessera::C: static remainder by zero; check the divisor's extent");
  return C<(B != 0 ? A % B : A)>{};
}

template <auto A>
TESSERA_HD constexpr C<(-A)> operator-(C<A>) noexcept {
  return {};
}
template <auto A>
TESSERA_HD constexpr C<(!A)> operator!(C<A>) noexcept {
  return {};
}

// ---- helpers that keep static-ness ---------------------------------------------------------

template <class A, class B>
TESSERA_HD constexpr auto min(A a, B b) {
  if constexpr (is_constant_v<A> && is_constant_v<B>) {
    return C<(A::value < B::value ? A::value : B::value)>{};
  } else {
    return a < b ? a : b;
  }
}

template <class A, class B>
TESSERA_HD constexpr auto max(A a, B b) {
  if constexpr (is_constant_v<A> && is_constant_v<B>) {
    return C<(A::value < B::value ? B::value : A::value)>{};
  } else {
    return a < b ? b : a;
  }
}

// ceil(a / b) for positive a, b.
template <class A, class B>
TESSERA_HD constexpr auto ceil_div(A a, B b) {
  if constexpr (is_constant_v<A> && is_constant_v<B>) {
    static_assert(B::value != 0, "ceil_div: static division by zero; check the divisor's extent");
    return C<((A::value + B::value - 1) / B::value)>{};
  } else {
    return (a + b - 1) / b;
  }
}

// Division of extents where one divides the other, as layout algebra needs it:
// shape_div(12, 4) = 3, shape_div(4, 12) = 1 (a smaller extent is used up entirely).
// Precondition: a % b == 0 or b % a == 0.
template <class A, class B>
TESSERA_HD constexpr auto shape_div(A a, B b) {
  if constexpr (is_constant_v<A> && is_constant_v<B>) {
    static_assert(B::value != 0 && A::value != 0, "shape_div: zero extent; extents must be positive");
    static_assert(A::value % B::value == 0 || B::value % A::value == 0,
                  "shape_div: neither extent divides the other; choose tile extents that divide the layout's "
                  "extents (or are multiples of them)");
    return C<(A::value / B::value != 0 ? A::value / B::value : 1)>{};
  } else {
    TESSERA_ASSERT(a % b == 0 || b % a == 0, "shape_div: neither extent divides the other");
    return a / b != 0 ? a / b : decltype(a / b)(1);
  }
}

// Mixed-type equality that stays static when both sides are.
template <class A, class B>
TESSERA_HD constexpr auto equal(A a, B b) {
  if constexpr (is_constant_v<A> && is_constant_v<B>) {
    return Bool<(A::value == B::value)>{};
  } else {
    return a == b;
  }
}

// Multiplication that knows `0 * x == 0` and `1 * x == x` statically, so that broadcast
// (stride-0) and unit modes keep static strides through products.
template <class A, class B>
TESSERA_HD constexpr auto mul(A a, B b) {
  if constexpr (is_constant_value_v<0, A> || is_constant_value_v<0, B>) {
    return Int<0>{};
  } else if constexpr (is_constant_value_v<1, A>) {
    return b;
  } else if constexpr (is_constant_value_v<1, B>) {
    return a;
  } else {
    return a * b;
  }
}

// a + b that knows `0 + x == x` statically.
template <class A, class B>
TESSERA_HD constexpr auto add(A a, B b) {
  if constexpr (is_constant_value_v<0, A>) {
    return b;
  } else if constexpr (is_constant_value_v<0, B>) {
    return a;
  } else {
    return a + b;
  }
}

}  // namespace tessera
