// Layout = (Shape, Stride): a function from coordinates to offsets.
//
//   auto a = make_layout(make_tuple(Int<4>{}, Int<3>{}), make_tuple(Int<1>{}, Int<4>{}));  // (4,3):(1,4)
//   a(1, 2) == 9;   a(5) == 5 (index 5 is coordinate (1, 1));   size(a) == 12;   cosize(a) == 12
//
// Shapes and strides are congruent integer tuples whose leaves may be static (Int<N>) or run-time
// integers. The algebra on layouts (composition, complement, divide, product, inverse) is in
// layout_algebra.hpp.
#pragma once

#include <type_traits>

#include "tessera/core/config.hpp"
#include "tessera/core/int_tuple.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/tuple.hpp"

namespace tessera {

// Shape and stride live in a Tuple base, so that a fully static layout is an empty type.
template <class Shape, class Stride>
struct Layout : private Tuple<Shape, Stride> {
  static_assert(is_congruent_v<Shape, Stride>,
                "tessera::Layout: shape and stride are not congruent; give one stride per shape mode, nested alike");

  using shape_type = Shape;
  using stride_type = Stride;

  constexpr Layout() = default;
  TESSERA_HD constexpr Layout(Shape const& shape, Stride const& stride) : Tuple<Shape, Stride>(shape, stride) {}

  // References for run-time shapes and strides, values for static (empty) ones.
  TESSERA_HD constexpr decltype(auto) shape() const { return get<0>(static_cast<Tuple<Shape, Stride> const&>(*this)); }
  TESSERA_HD constexpr decltype(auto) stride() const { return get<1>(static_cast<Tuple<Shape, Stride> const&>(*this)); }

  // The offset of a coordinate (congruent to the shape) or of a linear index.
  template <class Crd>
  TESSERA_HD constexpr auto operator()(Crd const& crd) const {
    return crd2idx(crd, shape(), stride());
  }
  // a(i, j, ...) == a(make_tuple(i, j, ...)).
  template <class C0, class C1, class... Cs>
  TESSERA_HD constexpr auto operator()(C0 const& c0, C1 const& c1, Cs const&... cs) const {
    return crd2idx(make_tuple(c0, c1, cs...), shape(), stride());
  }
};

template <class T>
struct is_layout_t : std::false_type {};
template <class S, class D>
struct is_layout_t<Layout<S, D>> : std::true_type {};
template <class T>
inline constexpr bool is_layout_v = is_layout_t<std::remove_cvref_t<T>>::value;

// ---- construction ------------------------------------------------------------------------------

template <class Shape, class Stride>
  requires(!is_layout_v<Shape>)
TESSERA_HD constexpr auto make_layout(Shape const& shape, Stride const& stride) {
  static_assert(is_congruent_v<Shape, Stride>,
                "make_layout: shape and stride are not congruent; give one stride per shape mode, nested alike");
  if constexpr (is_congruent_v<Shape, Stride>) {
    return Layout<Shape, Stride>(shape, stride);
  } else {
    return Layout<Int<1>, Int<0>>{};  // after the failed static_assert: keeps the error to one
  }
}

// A packed column-major layout of the shape: make_layout((4, 3)) == (4,3):(1,4).
template <class Shape>
  requires(!is_layout_v<Shape>)
TESSERA_HD constexpr auto make_layout(Shape const& shape) {
  return make_layout(shape, compact_col_major(shape));
}

// Concatenate layouts as modes of a new layout: make_layout(a, b) has mode 0 = a, mode 1 = b.
template <class S0, class D0, class... Ls>
TESSERA_HD constexpr auto make_layout(Layout<S0, D0> const& l0, Ls const&... ls) {
  static_assert((is_layout_v<Ls> && ...), "make_layout: every argument must be a Layout when the first one is");
  return make_layout(make_tuple(l0.shape(), ls.shape()...), make_tuple(l0.stride(), ls.stride()...));
}

template <class Shape>
TESSERA_HD constexpr auto make_layout_row_major(Shape const& shape) {
  return make_layout(shape, compact_row_major(shape));
}

// ---- properties --------------------------------------------------------------------------------

// Extent of a shape (an integer tuple), for symmetry with layouts.
template <class T>
  requires(!is_layout_v<T>)
TESSERA_HD constexpr auto size(T const& shape) {
  return product(shape);
}

template <class S, class D>
TESSERA_HD constexpr auto rank(Layout<S, D> const&) {
  return Int<int(tuple_size_v<S>)>{};
}

template <class S, class D>
TESSERA_HD constexpr auto depth(Layout<S, D> const&) {
  return Int<depth_of<S>()>{};
}

// One past the largest offset: cosize((4,3):(1,4)) == 12, cosize((4,3):(3,1)) == 12.
// Precondition: strides are non-negative.
template <class S, class D>
TESSERA_HD constexpr auto cosize(Layout<S, D> const& l) {
  // The largest offset is reached at the last coordinate of every mode.
  auto last = transform(flatten_to_tuple(l.shape()), [](auto s) { return s - Int<1>{}; });
  return add(inner_product(last, flatten_to_tuple(l.stride())), Int<1>{});
}

// All shapes and strides are compile-time constants.
template <class L>
inline constexpr bool is_static_layout_v =
    is_layout_v<L> && is_static_v<typename std::remove_cvref_t<L>::shape_type> &&
    is_static_v<typename std::remove_cvref_t<L>::stride_type>;

// ---- modes -------------------------------------------------------------------------------------

// The sub-layout of mode I (nested: layout<0, 1>(l)).
template <std::size_t... Is, class S, class D>
TESSERA_HD constexpr auto layout(Layout<S, D> const& l) {
  if constexpr (sizeof...(Is) == 0) {
    return l;
  } else {
    return make_layout(get<Is...>(l.shape()), get<Is...>(l.stride()));
  }
}

// shape<I...>(l), stride<I...>(l), size<I...>(l): of the whole layout, or of a (nested) mode.
template <std::size_t... Is, class S, class D>
TESSERA_HD constexpr auto shape(Layout<S, D> const& l) {
  if constexpr (sizeof...(Is) == 0) {
    return l.shape();
  } else {
    return get<Is...>(l.shape());
  }
}
template <std::size_t... Is, class S, class D>
TESSERA_HD constexpr auto stride(Layout<S, D> const& l) {
  if constexpr (sizeof...(Is) == 0) {
    return l.stride();
  } else {
    return get<Is...>(l.stride());
  }
}
template <std::size_t... Is, class S, class D>
TESSERA_HD constexpr auto size(Layout<S, D> const& l) {
  return product(shape<Is...>(l));
}

// Modes Is... of l, in that order, as a new layout.
template <std::size_t... Is, class S, class D>
TESSERA_HD constexpr auto select_modes(Layout<S, D> const& l) {
  return make_layout(select<Is...>(l.shape()), select<Is...>(l.stride()));
}

// Modes [B, E) of l as a new layout.
template <std::size_t B, std::size_t E, class S, class D>
TESSERA_HD constexpr auto take_modes(Layout<S, D> const& l) {
  return make_layout(take<B, E>(l.shape()), take<B, E>(l.stride()));
}

// Rank-1 layouts are kept as a tuple of one mode when `wrap` is asked; a layout of an integer
// shape becomes the one-mode tuple form ((s):(d)).
template <class S, class D>
TESSERA_HD constexpr auto wrap_modes(Layout<S, D> const& l) {
  if constexpr (is_tuple_v<S>) {
    return l;
  } else {
    return make_layout(make_tuple(l.shape()), make_tuple(l.stride()));
  }
}

// Append a mode to a layout (a non-tuple layout becomes rank 2).
template <class S, class D, class S1, class D1>
TESSERA_HD constexpr auto append_mode(Layout<S, D> const& l, Layout<S1, D1> const& m) {
  auto w = wrap_modes(l);
  return make_layout(append(w.shape(), m.shape()), append(w.stride(), m.stride()));
}

// Every mode flattened: flatten(((2,2),3):((1,2),4)) == (2,2,3):(1,2,4).
template <class S, class D>
TESSERA_HD constexpr auto flatten(Layout<S, D> const& l) {
  return make_layout(flatten(l.shape()), flatten(l.stride()));
}

// Equality of the representation (shape and stride values), not of the function.
template <class S0, class D0, class S1, class D1>
TESSERA_HD constexpr bool operator==(Layout<S0, D0> const& a, Layout<S1, D1> const& b) {
  if constexpr (!is_congruent_v<S0, S1>) {
    return false;
  } else {
    bool eq = true;
    auto fs0 = flatten_to_tuple(a.shape()), fs1 = flatten_to_tuple(b.shape());
    auto fd0 = flatten_to_tuple(a.stride()), fd1 = flatten_to_tuple(b.stride());
    for_each(transform(fs0, fs1, [](auto x, auto y) { return x == y; }), [&](bool e) { eq = eq && e; });
    for_each(transform(fd0, fd1, [](auto x, auto y) { return x == y; }), [&](bool e) { eq = eq && e; });
    return eq;
  }
}

}  // namespace tessera
