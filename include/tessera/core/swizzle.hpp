// Swizzle<Bits, Base, Shift>: an XOR permutation of offsets that spreads a tile's rows over the
// shared-memory banks.
//
//   offset' = offset ^ ((offset & YYY) >> Shift)  with YYY the Bits bits starting at Base + Shift
//
// i.e. the Bits-bit field at [Base + Shift, Base + Shift + Bits) is XORed into the field at
// [Base, Base + Bits). Base is log2 of the unit that moves together (in elements), Bits log2 of the
// number of units permuted, Shift the distance to the bits that choose the permutation.
// Swizzle<3, 3, 3> on half-precision offsets permutes 16-byte chunks (8 halves) within 128-byte
// rows according to the row index: each of 8 consecutive rows puts chunk c in a different bank group.
// A swizzle is an involution and a bijection on [0, 2^(Bits + Base + Shift)) and on every aligned
// block of that size.
#pragma once

#include "tessera/core/config.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/layout.hpp"

namespace tessera {

template <int Bits, int Base, int Shift>
struct Swizzle {
  static_assert(Bits >= 0, "Swizzle: Bits must be non-negative; use 0 for the identity");
  static_assert(Base >= 0, "Swizzle: Base must be non-negative; it is log2 of the unit that moves together");
  static_assert(Shift >= Bits, "Swizzle: Shift must be at least Bits so that the XOR source and target fields do not "
                               "overlap; use Shift >= Bits");

  static constexpr int bits = Bits;
  static constexpr int base = Base;
  static constexpr int shift = Shift;
  static constexpr unsigned target_mask = ((1u << Bits) - 1u) << Base;           // bits that change
  static constexpr unsigned source_mask = ((1u << Bits) - 1u) << (Base + Shift);  // bits that decide

  template <class Offset>
  TESSERA_HD constexpr auto operator()(Offset const& offset) const {
    if constexpr (is_constant_v<Offset>) {
      return C<(Offset::value ^ ((Offset::value & source_mask) >> Shift))>{};
    } else {
      return offset ^ ((offset & Offset(source_mask)) >> Shift);
    }
  }

  // The size of the smallest block the swizzle permutes within.
  static constexpr int period = 1 << (Bits + Base + Shift);
};

// A layout followed by a swizzle of its offsets: f(c) = swizzle(layout(c)).
template <class Swz, class Inner>
struct SwizzledLayout {
  Swz swizzle_;
  Inner layout_;

  constexpr SwizzledLayout() = default;
  TESSERA_HD constexpr SwizzledLayout(Swz const& s, Inner const& l) : swizzle_(s), layout_(l) {}

  TESSERA_HD constexpr auto shape() const { return layout_.shape(); }
  TESSERA_HD constexpr Inner const& layout() const { return layout_; }
  TESSERA_HD constexpr Swz const& swizzle() const { return swizzle_; }

  template <class... Crd>
  TESSERA_HD constexpr auto operator()(Crd const&... crd) const {
    return swizzle_(layout_(crd...));
  }
};

template <int B, int M, int S, class Shape, class Stride>
TESSERA_HD constexpr auto composition(Swizzle<B, M, S> const& swz, Layout<Shape, Stride> const& l) {
  return SwizzledLayout<Swizzle<B, M, S>, Layout<Shape, Stride>>(swz, l);
}

template <class Swz, class Inner>
TESSERA_HD constexpr auto size(SwizzledLayout<Swz, Inner> const& l) {
  return size(l.layout());
}

// The swizzle permutes within aligned blocks of `period`; the codomain is the inner layout's,
// rounded up to a whole block.
template <class Swz, class Inner>
TESSERA_HD constexpr auto cosize(SwizzledLayout<Swz, Inner> const& l) {
  auto c = cosize(l.layout());
  return ceil_div(c, Int<Swz::period>{}) * Int<Swz::period>{};
}

}  // namespace tessera
