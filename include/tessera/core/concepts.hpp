// The concepts later layers constrain their templates with (dependent_false is in core/config.hpp).
#pragma once

#include <concepts>
#include <type_traits>

#include "tessera/core/config.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/int_tuple.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/tuple.hpp"

namespace tessera {

// A leaf of a shape or stride: a run-time integer or a static C<N>.
template <class T>
concept Integral = is_integral_v<T>;

// A compile-time integer.
template <class T>
concept StaticIntegral = is_constant_v<T> && is_integral_v<T>;

// An integer or a (nested) Tuple of integers.
template <class T>
concept IntTuple = is_integral_v<T> || is_tuple_v<T>;

// A Layout<Shape, Stride>.
template <class T>
concept LayoutType = is_layout_v<T>;

// A Layout whose shapes and strides are all compile-time constants.
template <class T>
concept StaticLayout = is_static_layout_v<T>;

}  // namespace tessera
