// Integer tuples: an integer, or a Tuple of integer tuples. Shapes, strides and coordinates are
// integer tuples; these are the functions over them that layouts are built from.
//
// Coordinates are colexicographic (the leftmost mode varies fastest), as in column-major order:
// in shape (4, 3), index 5 is coordinate (1, 1).
#pragma once

#include <cstddef>
#include <type_traits>

#include "tessera/core/config.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/tuple.hpp"

namespace tessera {

// ---- structure ---------------------------------------------------------------------------------

// Number of top-level modes: rank(4) == 1, rank((4, (2, 3))) == 2.
template <class T>
TESSERA_HD constexpr auto rank(T const&) {
  return Int<int(tuple_size_v<T>)>{};
}
template <class T>
inline constexpr int rank_v = int(tuple_size_v<T>);

// Nesting depth: depth(4) == 0, depth((4, 2)) == 1, depth((4, (2, 3))) == 2.
template <class T>
TESSERA_HD constexpr int depth_of() {
  if constexpr (is_tuple_v<T>) {
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      int d = 0;
      ((d = d < depth_of<std::tuple_element_t<Is, std::remove_cvref_t<T>>>() ? depth_of<std::tuple_element_t<Is, std::remove_cvref_t<T>>>() : d), ...);
      return d + 1;
    }(std::make_index_sequence<tuple_size_v<T>>{});
  } else {
    return 0;
  }
}
template <class T>
TESSERA_HD constexpr auto depth(T const&) {
  return Int<depth_of<T>()>{};
}

// Every leaf is a compile-time constant.
template <class T>
TESSERA_HD constexpr bool is_static_of() {
  if constexpr (is_tuple_v<T>) {
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return (is_static_of<std::remove_cvref_t<std::tuple_element_t<Is, std::remove_cvref_t<T>>>>() && ...);
    }(std::make_index_sequence<tuple_size_v<T>>{});
  } else {
    return is_constant_v<T>;
  }
}
template <class T>
inline constexpr bool is_static_v = is_static_of<std::remove_cvref_t<T>>();

// Same tree structure (leaves may differ in value): (2, (3, 4)) is congruent to (1, (5, 6)).
template <class A, class B>
TESSERA_HD constexpr bool is_congruent_of() {
  if constexpr (is_tuple_v<A> && is_tuple_v<B>) {
    if constexpr (tuple_size_v<A> != tuple_size_v<B>) {
      return false;
    } else {
      return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
        return (is_congruent_of<std::tuple_element_t<Is, std::remove_cvref_t<A>>,
                                std::tuple_element_t<Is, std::remove_cvref_t<B>>>() && ...);
      }(std::make_index_sequence<tuple_size_v<A>>{});
    }
  } else {
    return !is_tuple_v<A> && !is_tuple_v<B>;
  }
}
template <class A, class B>
inline constexpr bool is_congruent_v = is_congruent_of<std::remove_cvref_t<A>, std::remove_cvref_t<B>>();

// ---- reductions --------------------------------------------------------------------------------

// Product of all leaves: product((4, (2, 3))) == 24; static when every leaf is.
template <class T>
TESSERA_HD constexpr auto product(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold(t, Int<1>{}, [](auto acc, auto const& m) { return mul(acc, product(m)); });
  } else {
    return t;
  }
}

// Sum of all leaves.
template <class T>
TESSERA_HD constexpr auto sum(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold(t, Int<0>{}, [](auto acc, auto const& m) { return add(acc, sum(m)); });
  } else {
    return t;
  }
}

// Sum of leaf-wise products of two congruent tuples.
template <class A, class B>
TESSERA_HD constexpr auto inner_product(A const& a, B const& b) {
  if constexpr (is_tuple_v<A>) {
    static_assert(is_congruent_v<A, B>, "inner_product: tuples are not congruent; pass tuples of one structure");
    return fold(transform(a, b, [](auto const& x, auto const& y) { return inner_product(x, y); }), Int<0>{},
                [](auto acc, auto v) { return add(acc, v); });
  } else {
    return mul(a, b);
  }
}

// ---- strides -------------------------------------------------------------------------------------

// Exclusive prefix product of the leaves, in the shape's structure, starting from `init`:
// compact_col_major((4, (2, 3))) == (1, (4, 8)). This is the stride of a packed column-major
// (leftmost-fastest) layout.
template <class Shape, class Init = Int<1>>
TESSERA_HD constexpr auto compact_col_major(Shape const& shape, Init const& init = {}) {
  if constexpr (is_tuple_v<Shape>) {
    // Each mode's stride starts where the previous mode's extent ends.
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_tuple(compact_col_major(get<Is>(shape), mul(init, product(take<0, Is>(shape))))...);
    }(std::make_index_sequence<tuple_size_v<Shape>>{});
  } else {
    return init;
  }
}

// The stride of a packed row-major (rightmost-fastest) layout: compact_row_major((4, 3)) == (3, 1).
template <class Shape, class Init = Int<1>>
TESSERA_HD constexpr auto compact_row_major(Shape const& shape, Init const& init = {}) {
  if constexpr (is_tuple_v<Shape>) {
    constexpr std::size_t R = tuple_size_v<Shape>;
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_tuple(compact_row_major(get<Is>(shape), mul(init, product(take<Is + 1, R>(shape))))...);
    }(std::make_index_sequence<R>{});
  } else {
    return init;
  }
}

// ---- coordinates ---------------------------------------------------------------------------------

// The coordinate of linear index `idx` in `shape` (colexicographic), congruent to `shape`.
// The last mode is not reduced modulo its extent, so indices past size(shape) stay meaningful.
// idx2crd(5, (4, 3)) == (1, 1).
template <class Idx, class Shape>
TESSERA_HD constexpr auto idx2crd(Idx const& idx, Shape const& shape) {
  if constexpr (is_tuple_v<Shape>) {
    constexpr std::size_t R = tuple_size_v<Shape>;
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_tuple([&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
        auto below = idx / product(take<0, I>(shape));
        if constexpr (I + 1 == R) {
          return idx2crd(below, get<I>(shape));
        } else {
          return idx2crd(below % product(get<I>(shape)), get<I>(shape));
        }
      }(std::integral_constant<std::size_t, Is>{})...);
    }(std::make_index_sequence<R>{});
  } else {
    return idx;
  }
}

// The offset of coordinate `crd` under (shape, stride). `crd` may be congruent to the shape, or
// an integer (a linear index, split colexicographically), or any mix per mode.
// crd2idx((1, 1), (4, 3), (1, 4)) == 5;  crd2idx(5, (4, 3), (3, 1)) == 4.
template <class Crd, class Shape, class Stride>
TESSERA_HD constexpr auto crd2idx(Crd const& crd, Shape const& shape, Stride const& stride) {
  if constexpr (is_tuple_v<Crd>) {
    static_assert(is_tuple_v<Shape> && tuple_size_v<Crd> == tuple_size_v<Shape>,
                  "crd2idx: coordinate has a different rank than the shape; give one coordinate per mode "
                  "or a single linear index");
    return fold(transform(crd, shape, stride, [](auto const& c, auto const& s, auto const& d) { return crd2idx(c, s, d); }),
                Int<0>{}, [](auto acc, auto v) { return add(acc, v); });
  } else if constexpr (is_tuple_v<Shape>) {
    return crd2idx(idx2crd(crd, shape), shape, stride);
  } else {
    return mul(crd, stride);
  }
}

// The linear (colexicographic) index of a coordinate in a shape: the inverse of idx2crd.
template <class Crd, class Shape>
TESSERA_HD constexpr auto crd2linear(Crd const& crd, Shape const& shape) {
  return crd2idx(crd, shape, compact_col_major(shape));
}

}  // namespace tessera
