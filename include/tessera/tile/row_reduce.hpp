// The pieces every register fragment's row reductions share (tile::WgmmaAccum, tile::MmaAccum,
// tile::MfmaAccumT): the lane exchange, the reduction operators, and the combination over the lanes
// that hold one row: the quad (lanes 4 g .. 4 g + 3 of a warp) of the NVIDIA fragments, the two
// halves of a wavefront (lanes j and j + 32) of the transposed MFMA one.
//
//   Array<float, 2> m = ...;                      // this thread's partial maxima of its two rows
//   tile::quad_allreduce(m, tile::MaxOp{});       // now the whole rows', in all four lanes
//
// A host test passes its own `float(float value, int mask)` in place of ShflXor: an emulation of
// the warp (test/unit/attention/warpgroup_emulation.hpp).
#pragma once

#include <cstddef>

#include "tessera/arch/shuffle.hpp"
#include "tessera/core/array.hpp"
#include "tessera/core/config.hpp"

namespace tessera::tile {

// The xor-shuffle of a float within a warp (arch::shfl_xor). The row reductions take any callable
// `float(float value, int mask)` in its place; a host test passes an emulation of the warpgroup.
struct ShflXor {
  TESSERA_HD float operator()(float value, int mask) const { return arch::shfl_xor(value, mask); }
};

// Reduction operators on float (fmaxf ignores a NaN operand, as the device instruction does).
struct MaxOp {
  TESSERA_HD float operator()(float a, float b) const {
#if TESSERA_DEVICE_PASS
    return fmaxf(a, b);
#else
    return __builtin_fmaxf(a, b);
#endif
  }
};
struct SumOp {
  TESSERA_HD float operator()(float a, float b) const { return a + b; }
};

// Combines each value over the quad (the 4 threads with the same rows): xor-shuffles 1 then 2;
// every thread of the quad ends with the same result. All rows' shuffles of a step go together.
template <std::size_t R, class Op, class Shfl = ShflXor>
TESSERA_HD void quad_allreduce(Array<float, R>& x, Op op, Shfl shfl = {}) {
  TESSERA_UNROLL
  for (int mask = 1; mask <= 2; mask *= 2) {
    TESSERA_UNROLL
    for (std::size_t r = 0; r < R; ++r) x[r] = op(x[r], shfl(x[r], mask));
  }
}

// The lanes that share a fragment's rows, as a type (attention::OnlineSoftmax's parameter):
// allreduce(x, op, shfl) combines each value over them.
struct QuadLanes {
  template <std::size_t R, class Op, class Shfl>
  TESSERA_HD static void allreduce(Array<float, R>& x, Op op, Shfl shfl) {
    quad_allreduce(x, op, shfl);
  }
};
struct HalfWaveLanes {  // lanes j and j + 32 of a 64-lane wavefront
  template <std::size_t R, class Op, class Shfl>
  TESSERA_HD static void allreduce(Array<float, R>& x, Op op, Shfl shfl) {
    TESSERA_UNROLL
    for (std::size_t r = 0; r < R; ++r) x[r] = op(x[r], shfl(x[r], 32));
  }
};

}  // namespace tessera::tile
