// The layout algebra: coalesce, composition, complement, divides, products and inverses.
//
// A layout L is a function from [0, size(L)) to offsets. The operations below build new layouts
// whose functions are defined by those of their inputs:
//   coalesce(L)(i)          == L(i)            with the fewest modes
//   composition(A, B)(c)    == A(B(c))         shape of B
//   complement(A, M)        the layout of the offsets in [0, M) that A does not reach, ordered
//   logical_divide(A, T)    == A o (T, complement(T, size(A)))   mode 0: one tile, mode 1: the tiles
//   logical_product(A, B)   == (A, complement(A, size(A)*cosize(B)) o B)   B copies of A
//   right_inverse(L)        R with L(R(i)) == i for i < size(R)
// Mode counts are decided at compile time: where an operation must compare extents or strides to
// decide how many modes the result has, those extents or strides must be static, and the operation
// says so in a static_assert otherwise.
#pragma once

#include <cstddef>
#include <type_traits>

#include "tessera/core/config.hpp"
#include "tessera/core/int_tuple.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/tuple.hpp"

namespace tessera {

namespace detail {

// A layout from a flat tuple of shapes and strides, with one mode unwrapped to an integer layout
// and zero modes made the trivial layout 1:0.
template <class FS, class FD>
TESSERA_HD constexpr auto layout_from_flat(FS const& fs, FD const& fd) {
  if constexpr (tuple_size_v<FS> == 0) {
    return make_layout(Int<1>{}, Int<0>{});
  } else if constexpr (tuple_size_v<FS> == 1) {
    return make_layout(get<0>(fs), get<0>(fd));
  } else {
    return make_layout(fs, fd);
  }
}

// The value of a static integer type, or `fallback` for a run-time one.
template <class T>
TESSERA_HOST_DEVICE constexpr long long static_value_or(long long fallback) {
  if constexpr (is_constant_v<T>) {
    return static_cast<long long>(std::remove_cvref_t<T>::value);
  } else {
    return fallback;
  }
}

// Modes of a flat layout that map more than one coordinate to more than one offset: a mode of
// static extent 1 or of static stride 0 adds nothing to the image and is left out.
template <class FS, class FD>
struct ModeOrder {
  static constexpr std::size_t R = tuple_size_v<FS>;
  template <std::size_t I>
  TESSERA_HOST_DEVICE static constexpr bool kept() {
    using S = std::tuple_element_t<I, FS>;
    using D = std::tuple_element_t<I, FD>;
    return !is_constant_value_v<1, S> && !is_constant_value_v<0, D>;
  }
  // Kept modes, sorted by stride (stable). `all_static` says whether the order could be decided.
  struct Result {
    std::size_t index[R > 0 ? R : 1]{};
    std::size_t count = 0;
    bool all_static = true;
  };
  TESSERA_HOST_DEVICE static constexpr Result compute() {
    Result r{};
    [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      bool keep[] = {kept<Is>()..., false};
      long long stride[] = {static_value_or<std::tuple_element_t<Is, FD>>(-1)..., 0};
      for (std::size_t i = 0; i < R; ++i) {
        if (!keep[i]) continue;
        if (stride[i] < 0) r.all_static = false;
        // insertion by stride
        std::size_t pos = r.count;
        while (pos > 0 && stride[r.index[pos - 1]] > stride[i]) {
          r.index[pos] = r.index[pos - 1];
          --pos;
        }
        r.index[pos] = i;
        ++r.count;
      }
    }(std::make_index_sequence<R>{});
    return r;
  }
  static constexpr Result value = compute();
};

// a * b == c, known at compile time (false when any of them is a run-time value).
template <class A, class B, class Cc>
TESSERA_HOST_DEVICE constexpr bool static_product_is() {
  if constexpr (is_constant_v<A> && is_constant_v<B> && is_constant_v<Cc>) {
    return A::value * B::value == Cc::value;
  } else {
    return false;
  }
}

// a % b == 0 or b % a == 0, or not known until run time.
template <class A, class B>
TESSERA_HOST_DEVICE constexpr bool divisible_either_or_dynamic() {
  if constexpr (is_constant_v<A> && is_constant_v<B>) {
    return A::value % B::value == 0 || B::value % A::value == 0;
  } else {
    return true;
  }
}

}  // namespace detail

// ================================================================================================
// coalesce
// ================================================================================================

// The same function on [0, size(L)) with as few modes as static information allows: modes of
// extent 1 are dropped and adjacent modes (s0:d0),(s1:d1) with d1 == s0*d0 merge into (s0*s1:d0).
// coalesce(((2,4),3):((1,2),8)) == 24:1.   coalesce((4,1,3):(1,7,4)) == 12:1.
template <class S, class D>
TESSERA_HD constexpr auto coalesce(Layout<S, D> const& l) {
  auto fs = flatten_to_tuple(l.shape());
  auto fd = flatten_to_tuple(l.stride());
  auto modes = transform(fs, fd, [](auto s, auto d) { return make_tuple(s, d); });
  auto merged = fold(modes, make_tuple(Tuple<>{}, Tuple<>{}), [](auto acc, auto mode) {
    auto [accs, accd] = acc;
    auto s = get<0>(mode);
    auto d = get<1>(mode);
    constexpr std::size_t N = tuple_size_v<decltype(accs)>;
    if constexpr (is_constant_value_v<1, decltype(s)>) {
      return acc;
    } else if constexpr (N == 0) {
      return make_tuple(make_tuple(s), make_tuple(d));
    } else {
      auto s0 = get<N - 1>(accs);
      auto d0 = get<N - 1>(accd);
      if constexpr (detail::static_product_is<decltype(s0), decltype(d0), decltype(d)>()) {
        return make_tuple(append(take<0, N - 1>(accs), mul(s0, s)), accd);
      } else {
        return make_tuple(append(accs, s), append(accd, d));
      }
    }
  });
  return detail::layout_from_flat(get<0>(merged), get<1>(merged));
}

// By-mode coalesce: with a tuple `profile`, mode i of the result is coalesce(mode i of l) and the
// rank of l is kept; coalesce(l, (_1, _1)) keeps a rank-2 layout rank 2.
template <class S, class D, class Profile>
TESSERA_HD constexpr auto coalesce(Layout<S, D> const& l, Profile const& profile) {
  if constexpr (is_tuple_v<Profile>) {
    static_assert(tuple_size_v<Profile> <= tuple_size_v<S>,
                  "coalesce: the profile has more modes than the layout; pass a profile of at most rank(layout)");
    constexpr std::size_t P = tuple_size_v<Profile>;
    return [&]<std::size_t... Is, std::size_t... Js>(std::index_sequence<Is...>, std::index_sequence<Js...>) {
      return make_layout(coalesce(layout<Is>(l), get<Is>(profile))..., layout<P + Js>(l)...);
    }(std::make_index_sequence<P>{}, std::make_index_sequence<tuple_size_v<S> - P>{});
  } else {
    return coalesce(l);
  }
}

// ================================================================================================
// composition
// ================================================================================================

namespace detail {

// A (flat, coalesced) layout composed with the one-mode layout s:d, mode by mode.
// For mode i of A with extent a and stride e, and the stride still to skip `rs` and the extent
// still to cover `rn`:
//   skip:  a' = shape_div(a, rs)  stride e*rs,  rs' = shape_div(rs, a)
//   cover: extent min(a', rn),                  rn' = rn <= a' ? 1 : rn / a'
// The last mode of A is taken as unbounded and covers whatever extent is left.
template <std::size_t I, class FS, class FD, class RS, class RN, class AccS, class AccD>
TESSERA_HD constexpr auto compose_modes(FS const& fs, FD const& fd, RS rs, RN rn, AccS const& accs, AccD const& accd) {
  constexpr std::size_t R = tuple_size_v<FS>;
  auto a = get<I>(fs);
  auto e = get<I>(fd);
  if constexpr (I + 1 == R) {
    return make_tuple(append(accs, rn), append(accd, mul(e, rs)));
  } else if constexpr (!divisible_either_or_dynamic<decltype(a), RS>()) {
    static_assert(divisible_either_or_dynamic<decltype(a), RS>(),
                  "composition: a stride of the inner layout does not step evenly through a mode of the outer "
                  "layout; use strides and extents that divide (or are multiples of) the outer layout's extents");
    return make_tuple(accs, accd);  // after the failed static_assert: no further errors
  } else {
    auto a1 = shape_div(a, rs);
    auto d1 = mul(e, rs);
    auto rs1 = shape_div(rs, a);
    using A1 = decltype(a1);
    using RN_ = decltype(rn);
    if constexpr (is_constant_value_v<1, A1> || is_constant_value_v<1, RN_>) {
      // This mode is skipped entirely, or nothing is left to cover.
      return compose_modes<I + 1>(fs, fd, rs1, rn, accs, accd);
    } else if constexpr (is_constant_v<A1> && is_constant_v<RN_>) {
      if constexpr (RN_::value <= A1::value) {
        return compose_modes<I + 1>(fs, fd, rs1, Int<1>{}, append(accs, rn), append(accd, d1));
      } else {
        static_assert(RN_::value % A1::value == 0,
                      "composition: the extent to cover is not a multiple of a mode of the outer layout; "
                      "compose with a layout whose extents divide (or are multiples of) the outer layout's");
        return compose_modes<I + 1>(fs, fd, rs1, C<RN_::value / A1::value>{}, append(accs, a1), append(accd, d1));
      }
    } else {
      TESSERA_ASSERT(rn <= a1 || rn % a1 == 0, "composition: extent to cover is not a multiple of a mode's extent");
      auto m = min(a1, rn);
      auto rn1 = rn <= a1 ? decltype(rn / a1)(1) : rn / a1;
      return compose_modes<I + 1>(fs, fd, rs1, rn1, append(accs, m), append(accd, d1));
    }
  }
}

template <class LA, class S, class D>
TESSERA_HD constexpr auto compose_1d(LA const& a, S const& s, D const& d) {
  if constexpr (is_constant_value_v<0, D>) {
    return make_layout(s, Int<0>{});
  } else {
    auto ca = coalesce(a);
    auto fs = flatten_to_tuple(ca.shape());
    auto fd = flatten_to_tuple(ca.stride());
    TESSERA_ASSERT(d != 0, "composition: a run-time stride of 0 in the inner layout; make it Int<0> to broadcast");
    auto r = compose_modes<0>(fs, fd, d, s, Tuple<>{}, Tuple<>{});
    return coalesce(detail::layout_from_flat(get<0>(r), get<1>(r)));
  }
}

// An element of a tiler: a layout stays, an integer n means the contiguous tile n:1.
template <class T>
TESSERA_HD constexpr auto as_tile_layout(T const& t) {
  if constexpr (is_layout_v<T>) {
    return t;
  } else {
    static_assert(is_integral_v<T>, "tiler: each element must be a Layout or an extent");
    return make_layout(t, Int<1>{});
  }
}

}  // namespace detail

// A o B: the layout with B's shape whose offsets are A(B(c)).
// composition((6,2):(8,2), (4,3):(3,1)) is ((2,2),3):((24,2),8).
// Precondition (checked statically where static): B's strides and extents step through A's modes
// evenly, i.e. each of A's extents divides or is divided by the stride and extent left to cover.
template <class SA, class DA, class SB, class DB>
TESSERA_HD constexpr auto composition(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  if constexpr (is_tuple_v<SB>) {
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_layout(composition(a, layout<Is>(b))...);
    }(std::make_index_sequence<tuple_size_v<SB>>{});
  } else {
    return detail::compose_1d(a, b.shape(), b.stride());
  }
}

namespace detail {
// Mode i of `a` replaced by op(mode i of a, tile layout i) for each element of the tiler (a Tuple
// of layouts or extents); the modes of `a` beyond the tiler's rank are kept as they are.
template <class SA, class DA, class... Ts, class Op>
TESSERA_HD constexpr auto by_mode(Layout<SA, DA> const& a, Tuple<Ts...> const& tiler, Op op) {
  constexpr bool fits = sizeof...(Ts) <= tuple_size_v<SA>;
  static_assert(fits, "tiler: the tiler has more modes than the layout; pass at most rank(layout) tile modes");
  if constexpr (!fits) {
    return a;  // after the failed static_assert: no further errors
  } else {
    return [&]<std::size_t... Is, std::size_t... Js>(std::index_sequence<Is...>, std::index_sequence<Js...>) {
      return make_layout(op(layout<Is>(a), as_tile_layout(get<Is>(tiler)))..., layout<sizeof...(Ts) + Js>(a)...);
    }(std::index_sequence_for<Ts...>{}, std::make_index_sequence<tuple_size_v<SA> - sizeof...(Ts)>{});
  }
}
}  // namespace detail

// By-mode composition with a tiler (a Tuple of layouts or extents): mode i of A is composed with
// element i; modes of A beyond the tiler's rank are kept.
template <class SA, class DA, class... Ts>
TESSERA_HD constexpr auto composition(Layout<SA, DA> const& a, Tuple<Ts...> const& tiler) {
  return detail::by_mode(a, tiler, [](auto const& mode, auto const& tile) { return composition(mode, tile); });
}

// ================================================================================================
// complement
// ================================================================================================

namespace detail {

template <std::size_t K, class Order, class FS, class FD, class Cur, class AccS, class AccD>
TESSERA_HD constexpr auto complement_modes(FS const& fs, FD const& fd, Cur cur, AccS const& accs, AccD const& accd) {
  if constexpr (K == Order::value.count) {
    return make_tuple(accs, accd, cur);
  } else {
    constexpr std::size_t I = Order::value.index[K];
    auto s = get<I>(fs);
    auto d = get<I>(fd);
    if constexpr (is_constant_v<decltype(d)> && is_constant_v<Cur>) {
      static_assert(decltype(d)::value % Cur::value == 0,
                    "complement: the layout's modes overlap or are not ordered evenly (a stride is not a "
                    "multiple of the previous mode's extent times stride); complement needs an injective layout");
    } else {
      TESSERA_ASSERT(d % cur == 0, "complement: the layout's modes overlap");
    }
    return complement_modes<K + 1, Order>(fs, fd, mul(s, d), append(accs, d / cur), append(accd, cur));
  }
}

}  // namespace detail

// The layout R of the offsets in [0, cotarget) that A misses, in increasing order, such that
// (A, R) is injective and reaches every offset up to a multiple of size(A):
// complement(4:2, 24) == (2,3):(1,8).   complement((2,2):(1,6), 24) == (3,2):(2,12).
// Precondition: A is injective with non-negative strides; for rank > 1 its strides are static
// (they decide the order of the result's modes).
template <class S, class D, class M>
TESSERA_HD constexpr auto complement(Layout<S, D> const& a, M const& cotarget) {
  auto fs = flatten_to_tuple(a.shape());
  auto fd = flatten_to_tuple(a.stride());
  using Order = detail::ModeOrder<decltype(fs), decltype(fd)>;
  constexpr bool orderable = Order::value.count <= 1 || Order::value.all_static;
  static_assert(orderable,
                "complement: strides of a layout of rank > 1 must be static to order its modes; use Int<N> strides");
  if constexpr (!orderable) {
    return make_layout(Int<1>{}, Int<0>{});  // after the failed static_assert: no further errors
  } else {
    auto r = detail::complement_modes<0, Order>(fs, fd, Int<1>{}, Tuple<>{}, Tuple<>{});
    auto cur = get<2>(r);
    auto rs = append(get<0>(r), ceil_div(cotarget, cur));
    auto rd = append(get<1>(r), cur);
    return coalesce(make_layout(rs, rd));
  }
}

// The complement within A's own codomain.
template <class S, class D>
TESSERA_HD constexpr auto complement(Layout<S, D> const& a) {
  return complement(a, cosize(a));
}

// ================================================================================================
// divide
// ================================================================================================

// A split into tiles of T: mode 0 enumerates one tile (T), mode 1 the tiles (T's complement).
// logical_divide(24:1, 4:2) == ((4),(2,3)):((2),(1,8)) up to coalescing: (4:2, (2,3):(1,8)).
template <class SA, class DA, class ST, class DT>
TESSERA_HD constexpr auto logical_divide(Layout<SA, DA> const& a, Layout<ST, DT> const& tile) {
  return composition(a, make_layout(tile, complement(tile, size(a))));
}

// By-mode divide with a tiler (a Tuple of layouts or extents): mode i becomes (tile_i, rest_i).
template <class SA, class DA, class... Ts>
TESSERA_HD constexpr auto logical_divide(Layout<SA, DA> const& a, Tuple<Ts...> const& tiler) {
  return detail::by_mode(a, tiler, [](auto const& mode, auto const& tile) { return logical_divide(mode, tile); });
}

// ((tile modes...), (rest modes...)): mode 0 addresses inside a tile, mode 1 picks the tile.
// zipped_divide((12,8):(1,12), (4,2)) has mode 0 = (4,2):(1,12) and mode 1 = (3,4):(4,24).
template <class SA, class DA, class Tiler>
TESSERA_HD constexpr auto zipped_divide(Layout<SA, DA> const& a, Tiler const& tiler) {
  if constexpr (is_layout_v<Tiler>) {
    return logical_divide(a, tiler);
  } else {
    constexpr std::size_t T = tuple_size_v<Tiler>;
    auto d = logical_divide(a, tiler);
    if constexpr (T > tuple_size_v<SA>) {
      return d;  // logical_divide has reported the tiler's rank: no further errors
    } else {
    return [&]<std::size_t... Is, std::size_t... Js>(std::index_sequence<Is...>, std::index_sequence<Js...>) {
      return make_layout(make_layout(layout<Is, 0>(d)...), make_layout(layout<Is, 1>(d)..., layout<T + Js>(d)...));
    }(std::make_index_sequence<T>{}, std::make_index_sequence<tuple_size_v<SA> - T>{});
    }
  }
}

// ((tile modes...), rest_0, rest_1, ...): like zipped_divide with the tile counts as separate modes,
// so that l(tile_coord, m, n) indexes tile (m, n).
template <class SA, class DA, class Tiler>
TESSERA_HD constexpr auto tiled_divide(Layout<SA, DA> const& a, Tiler const& tiler) {
  auto z = zipped_divide(a, tiler);
  auto rest = layout<1>(z);
  if constexpr (is_tuple_v<typename decltype(rest)::shape_type>) {
    constexpr std::size_t R = tuple_size_v<typename decltype(rest)::shape_type>;
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_layout(layout<0>(z), layout<Is>(rest)...);
    }(std::make_index_sequence<R>{});
  } else {
    return z;
  }
}

// ================================================================================================
// product
// ================================================================================================

// B copies of A: mode 0 is A, mode 1 places the copies as B orders them in the space A leaves free.
// logical_product(2:1, 3:1) == (2:1, 3:2).
template <class SA, class DA, class SB, class DB>
TESSERA_HD constexpr auto logical_product(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  return make_layout(a, composition(complement(a, mul(size(a), cosize(b))), b));
}

namespace detail {
template <bool BlockFirst, class SA, class DA, class SB, class DB>
TESSERA_HD constexpr auto zip_product(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  static_assert(tuple_size_v<SA> == tuple_size_v<SB>,
                "blocked_product/raked_product: the block and the tiler have different ranks; give both the same "
                "number of modes (pad with 1:0)");
  auto wa = wrap_modes(a);
  auto wb = wrap_modes(b);
  auto copies = composition(complement(wa, mul(size(a), cosize(wb))), wb);
  constexpr std::size_t R = tuple_size_v<decltype(wa.shape())>;
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    if constexpr (BlockFirst) {
      return coalesce(make_layout(make_layout(layout<Is>(wa), layout<Is>(copies))...), tuple_repeat<R>(Int<1>{}));
    } else {
      return coalesce(make_layout(make_layout(layout<Is>(copies), layout<Is>(wa))...), tuple_repeat<R>(Int<1>{}));
    }
  }(std::make_index_sequence<R>{});
}
}  // namespace detail

// Mode i of the result is (A_i, B_i): A's block repeated in B's arrangement, blocks contiguous.
// blocked_product((2,2):(1,2), (3,4):(1,3)) == (6,8):(1,6)-shaped, with each 2x2 block dense.
template <class SA, class DA, class SB, class DB>
TESSERA_HD constexpr auto blocked_product(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  return detail::zip_product<true>(a, b);
}

// Mode i of the result is (B_i, A_i): A's elements interleaved ("raked") across B's copies.
template <class SA, class DA, class SB, class DB>
TESSERA_HD constexpr auto raked_product(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  return detail::zip_product<false>(a, b);
}

// ================================================================================================
// inverse
// ================================================================================================

namespace detail {
template <std::size_t K, class Order, class FS, class FD, class FP, class Cur, class AccS, class AccD>
TESSERA_HD constexpr auto right_inverse_modes(FS const& fs, FD const& fd, FP const& fp, Cur, AccS const& accs,
                                              AccD const& accd) {
  if constexpr (K == Order::value.count) {
    return make_tuple(accs, accd);
  } else {
    constexpr std::size_t I = Order::value.index[K];
    using DI = std::remove_cvref_t<decltype(get<I>(fd))>;
    using SI = std::remove_cvref_t<decltype(get<I>(fs))>;
    if constexpr (!is_constant_v<DI> || !is_constant_v<Cur> || DI::value != Cur::value) {
      return make_tuple(accs, accd);  // the offsets stop being contiguous here
    } else if constexpr (!is_constant_v<SI>) {
      return make_tuple(append(accs, get<I>(fs)), append(accd, get<I>(fp)));  // extent unknown: stop after it
    } else {
      return right_inverse_modes<K + 1, Order>(fs, fd, fp, C<Cur::value * SI::value>{}, append(accs, get<I>(fs)),
                                               append(accd, get<I>(fp)));
    }
  }
}
}  // namespace detail

// R such that L(R(i)) == i for every i < size(R), with size(R) as large as L's contiguous image
// from 0 allows: right_inverse((4,2):(2,1)) == (2,4):(4,1), since offsets 0..7 are all reached.
// Precondition: L's strides are static.
template <class S, class D>
TESSERA_HD constexpr auto right_inverse(Layout<S, D> const& l) {
  auto fs = flatten_to_tuple(l.shape());
  auto fd = flatten_to_tuple(l.stride());
  auto fp = compact_col_major(fs);
  using Order = detail::ModeOrder<decltype(fs), decltype(fd)>;
  static_assert(Order::value.all_static, "right_inverse: the layout's strides must be static; use Int<N> strides");
  if constexpr (!Order::value.all_static) {
    return make_layout(Int<1>{}, Int<0>{});  // after the failed static_assert: no further errors
  } else {
    auto r = detail::right_inverse_modes<0, Order>(fs, fd, fp, Int<1>{}, Tuple<>{}, Tuple<>{});
    return coalesce(detail::layout_from_flat(get<0>(r), get<1>(r)));
  }
}

}  // namespace tessera
