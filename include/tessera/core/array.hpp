// Array<T, N>: a fixed-size array for registers (fragments) and small host/device tables.
//
// Index it with compile-time constants in device code (unrolled loops): a run-time index can move
// the array to local memory.
#pragma once

#include <cstddef>

#include "tessera/core/config.hpp"

namespace tessera {

template <class T, std::size_t N>
struct Array {
  static_assert(N > 0, "tessera::Array: N must be positive; an empty fragment has no use");
  using value_type = T;
  T data_[N];

  static constexpr std::size_t size() { return N; }
  TESSERA_HD constexpr T& operator[](std::size_t i) { return data_[i]; }
  TESSERA_HD constexpr T const& operator[](std::size_t i) const { return data_[i]; }
  TESSERA_HD constexpr T* data() { return data_; }
  TESSERA_HD constexpr T const* data() const { return data_; }
  TESSERA_HD constexpr T* begin() { return data_; }
  TESSERA_HD constexpr T* end() { return data_ + N; }
  TESSERA_HD constexpr T const* begin() const { return data_; }
  TESSERA_HD constexpr T const* end() const { return data_ + N; }

  TESSERA_HD constexpr void fill(T const& v) {
    for (std::size_t i = 0; i < N; ++i) data_[i] = v;
  }
};

}  // namespace tessera
