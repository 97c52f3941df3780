// MmaTraits<Op>: what an MMA instruction computes and which thread holds which element.
//
// For an instruction computing D (M x N) = A (M x K) * B (K x N) + C across `threads` threads:
//   a_layout(): (thread, value) -> m + M * k      value v of thread t holds A(m, k)
//   b_layout(): (thread, value) -> n + N * k      value v of thread t holds B(k, n)
//   c_layout(): (thread, value) -> m + M * n      value v of thread t holds C(m, n) and D(m, n)
// Values are numbered in register order: value v of a 16-bit operand is half (v % 2) of
// register v / 2. These layouts are plain constexpr data, so the host can check them (bijections,
// warp emulation) without a GPU; the device tests check that the instruction agrees.
#pragma once

#include "tessera/core/concepts.hpp"
#include "tessera/core/layout.hpp"

namespace tessera::atom {

template <class Op>
struct MmaTraits {
  static_assert(dependent_false<Op>, "MmaTraits: no traits for this instruction; see atom/mma_sm80.hpp for the list");
};

// An Op with traits: the instruction's tile shape, thread count, element types and layouts.
template <class T>
concept MmaAtom = requires {
  T::M;
  T::N;
  T::K;
  T::threads;
  typename T::ElementA;
  typename T::ElementB;
  typename T::ElementC;
  T::a_layout();
  T::b_layout();
  T::c_layout();
};

}  // namespace tessera::atom
