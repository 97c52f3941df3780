// A tuple usable in host and device code, with empty members (static integers) taking no space,
// and the handful of algorithms the layout algebra is written with.
//
// std::tuple is not device-callable without --expt-relaxed-constexpr; this one is.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tessera/core/config.hpp"
#include "tessera/core/integral.hpp"

namespace tessera {

namespace detail {

// One element of a tuple. An empty element type (a static integer, a tuple of them) is not
// stored at all: get() makes a fresh one. Inheriting from it instead would make nested tuples of
// static integers ambiguous bases of each other.
template <std::size_t I, class T, bool Empty = std::is_empty_v<T>>
struct TupleLeaf {
  T value_;
  constexpr TupleLeaf() = default;
  TESSERA_HD constexpr TupleLeaf(T const& v) : value_(v) {}
  TESSERA_HD constexpr T& leaf() noexcept { return value_; }
  TESSERA_HD constexpr T const& leaf() const noexcept { return value_; }
};

template <std::size_t I, class T>
struct TupleLeaf<I, T, true> {
  static_assert(std::is_default_constructible_v<T>, "tessera::Tuple: an empty element type must be default-constructible");
  constexpr TupleLeaf() = default;
  TESSERA_HD constexpr TupleLeaf(T const&) {}
  TESSERA_HD constexpr T leaf() const noexcept { return T{}; }
};

template <class Seq, class... Ts>
struct TupleBase;

template <std::size_t... Is, class... Ts>
struct TupleBase<std::index_sequence<Is...>, Ts...> : TupleLeaf<Is, Ts>... {
  constexpr TupleBase() = default;
  TESSERA_HD constexpr TupleBase(Ts const&... vs) requires(sizeof...(Ts) > 0) : TupleLeaf<Is, Ts>(vs)... {}
};

}  // namespace detail

template <class... Ts>
struct Tuple : detail::TupleBase<std::index_sequence_for<Ts...>, Ts...> {
  using Base = detail::TupleBase<std::index_sequence_for<Ts...>, Ts...>;
  static constexpr std::size_t rank = sizeof...(Ts);
  constexpr Tuple() = default;
  TESSERA_HD constexpr Tuple(Ts const&... vs) requires(sizeof...(Ts) > 0) : Base(vs...) {}
};

template <class... Ts>
Tuple(Ts...) -> Tuple<Ts...>;

// ---- traits ----------------------------------------------------------------------------------

template <class T>
struct is_tuple_t : std::false_type {};
template <class... Ts>
struct is_tuple_t<Tuple<Ts...>> : std::true_type {};
template <class T>
inline constexpr bool is_tuple_v = is_tuple_t<std::remove_cvref_t<T>>::value;

template <class T>
struct tuple_size_t : std::integral_constant<std::size_t, 1> {};  // an integer is a rank-1 tuple
template <class... Ts>
struct tuple_size_t<Tuple<Ts...>> : std::integral_constant<std::size_t, sizeof...(Ts)> {};
template <class T>
inline constexpr std::size_t tuple_size_v = tuple_size_t<std::remove_cvref_t<T>>::value;

// ---- element access ----------------------------------------------------------------------------

// get<I>(tuple) is the I-th element; get<0>(x) of a non-tuple is x itself, so that an integer
// behaves like a rank-1 tuple wherever the algebra asks for modes.
template <std::size_t I, class T>
TESSERA_HD constexpr decltype(auto) get(T&& t) {
  if constexpr (is_tuple_v<T>) {
    static_assert(I < tuple_size_v<T>, "tessera::get: mode index out of range; the index must be less than the rank");
    if constexpr (I >= tuple_size_v<T>) {
      return Tuple<>{};  // only reached after the static_assert above has failed: no further errors
    } else {
    using Elem = std::tuple_element_t<I, std::remove_cvref_t<T>>;
    using Leaf = detail::TupleLeaf<I, Elem>;
    if constexpr (std::is_empty_v<Elem>) {
      return Elem{};
    } else if constexpr (std::is_lvalue_reference_v<T>) {
      return static_cast<std::conditional_t<std::is_const_v<std::remove_reference_t<T>>, Leaf const&, Leaf&>>(t).leaf();
    } else {
      return Elem(static_cast<Leaf const&>(t).leaf());
    }
    }
  } else {
    static_assert(I == 0, "tessera::get: an integer has a single mode; use get<0> or no get at all");
    return std::forward<T>(t);
  }
}

// Nested access: get<0, 1>(t) == get<1>(get<0>(t)).
template <std::size_t I0, std::size_t I1, std::size_t... Is, class T>
TESSERA_HD constexpr decltype(auto) get(T&& t) {
  return get<I1, Is...>(get<I0>(std::forward<T>(t)));
}

template <class... Ts>
TESSERA_HD constexpr Tuple<Ts...> make_tuple(Ts const&... ts) {
  return Tuple<Ts...>(ts...);
}

// ---- algorithms ------------------------------------------------------------------------------

namespace detail {
template <class T, class F, std::size_t... Is>
TESSERA_HD constexpr auto transform_impl(T const& t, F&& f, std::index_sequence<Is...>) {
  return make_tuple(f(get<Is>(t))...);
}
template <class T, class U, class F, std::size_t... Is>
TESSERA_HD constexpr auto transform_impl(T const& t, U const& u, F&& f, std::index_sequence<Is...>) {
  return make_tuple(f(get<Is>(t), get<Is>(u))...);
}
template <class T, class U, class V, class F, std::size_t... Is>
TESSERA_HD constexpr auto transform_impl(T const& t, U const& u, V const& v, F&& f, std::index_sequence<Is...>) {
  return make_tuple(f(get<Is>(t), get<Is>(u), get<Is>(v))...);
}
}  // namespace detail

// (f(t0), f(t1), ...)
template <class T, class F>
TESSERA_HD constexpr auto transform(T const& t, F&& f) {
  return detail::transform_impl(t, f, std::make_index_sequence<tuple_size_v<T>>{});
}
// (f(t0, u0), f(t1, u1), ...); both of the same rank.
template <class T, class U, class F>
TESSERA_HD constexpr auto transform(T const& t, U const& u, F&& f) {
  static_assert(tuple_size_v<T> == tuple_size_v<U>, "tessera::transform: tuples of different ranks; pass tuples of one rank");
  return detail::transform_impl(t, u, f, std::make_index_sequence<tuple_size_v<T>>{});
}
template <class T, class U, class V, class F>
TESSERA_HD constexpr auto transform(T const& t, U const& u, V const& v, F&& f) {
  static_assert(tuple_size_v<T> == tuple_size_v<U> && tuple_size_v<T> == tuple_size_v<V>,
                "tessera::transform: tuples of different ranks; pass tuples of one rank");
  return detail::transform_impl(t, u, v, f, std::make_index_sequence<tuple_size_v<T>>{});
}

template <class T, class F>
TESSERA_HD constexpr void for_each(T const& t, F&& f) {
  [&]<std::size_t... Is>(std::index_sequence<Is...>) { (f(get<Is>(t)), ...); }(std::make_index_sequence<tuple_size_v<T>>{});
}

namespace detail {
template <std::size_t I, class T, class Acc, class F>
TESSERA_HD constexpr auto fold_impl(T const& t, Acc const& acc, F& f) {
  if constexpr (I == tuple_size_v<T>) {
    return acc;
  } else {
    return fold_impl<I + 1>(t, f(acc, get<I>(t)), f);
  }
}
}  // namespace detail

// f(...f(f(init, t0), t1)..., tn-1); the accumulator may change type at every step.
template <class T, class Init, class F>
TESSERA_HD constexpr auto fold(T const& t, Init const& init, F&& f) {
  return detail::fold_impl<0>(t, init, f);
}

// Concatenation of tuples: (a0, a1, b0) = tuple_cat((a0, a1), (b0)).
template <class... As, class... Bs>
TESSERA_HD constexpr auto tuple_cat(Tuple<As...> const& a, Tuple<Bs...> const& b) {
  return [&]<std::size_t... Is, std::size_t... Js>(std::index_sequence<Is...>, std::index_sequence<Js...>) {
    return make_tuple(get<Is>(a)..., get<Js>(b)...);
  }(std::index_sequence_for<As...>{}, std::index_sequence_for<Bs...>{});
}
template <class A, class B, class... Rest>
TESSERA_HD constexpr auto tuple_cat(A const& a, B const& b, Rest const&... rest) {
  return tuple_cat(tuple_cat(a, b), rest...);
}
TESSERA_HD constexpr Tuple<> tuple_cat() { return {}; }
template <class A>
TESSERA_HD constexpr A tuple_cat(A const& a) { return a; }

// t with x added at the end / the front.
template <class T, class X>
TESSERA_HD constexpr auto append(T const& t, X const& x) {
  if constexpr (is_tuple_v<T>) {
    return tuple_cat(t, make_tuple(x));
  } else {
    return make_tuple(t, x);
  }
}
template <class T, class X>
TESSERA_HD constexpr auto prepend(T const& t, X const& x) {
  if constexpr (is_tuple_v<T>) {
    return tuple_cat(make_tuple(x), t);
  } else {
    return make_tuple(x, t);
  }
}

// Elements [B, E) of t.
template <std::size_t B, std::size_t E, class T>
TESSERA_HD constexpr auto take(T const& t) {
  static_assert(B <= E && E <= tuple_size_v<T>, "tessera::take: range outside the tuple; need B <= E <= rank");
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) { return make_tuple(get<B + Is>(t)...); }(
             std::make_index_sequence<E - B>{});
}

// Elements Is... of t, in that order.
template <std::size_t... Is, class T>
TESSERA_HD constexpr auto select(T const& t) {
  return make_tuple(get<Is>(t)...);
}

// The leaves of a nested tuple as one flat tuple; a non-tuple stays as it is.
template <class T>
TESSERA_HD constexpr auto flatten_to_tuple(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return tuple_cat(Tuple<>{}, flatten_to_tuple(get<Is>(t))...);
    }(std::make_index_sequence<tuple_size_v<T>>{});
  } else {
    return make_tuple(t);
  }
}
template <class T>
TESSERA_HD constexpr auto flatten(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return flatten_to_tuple(t);
  } else {
    return t;
  }
}

// A tuple of N copies of x.
template <std::size_t N, class X>
TESSERA_HD constexpr auto tuple_repeat(X const& x) {
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) { return make_tuple(((void)Is, x)...); }(
             std::make_index_sequence<N>{});
}

}  // namespace tessera

// Structured bindings: auto [m, n] = shape;
template <class... Ts>
struct std::tuple_size<tessera::Tuple<Ts...>> : std::integral_constant<std::size_t, sizeof...(Ts)> {};
template <std::size_t I, class... Ts>
struct std::tuple_element<I, tessera::Tuple<Ts...>> : std::tuple_element<I, std::tuple<Ts...>> {};
