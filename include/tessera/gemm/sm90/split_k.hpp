// Split-K across the blocks of the persistent sm90 GEMM: K's k-tiles in k_splits slices. A slice
// other than the last writes its consumer's accumulators (rows inside D only) to its slot, in
// fragment order, and counts itself done (no epilogue). The last slice waits until the others are
// done, adds their slots to its accumulators in slice order (the sum does not depend on timing),
// resets the counter and runs the epilogue. The blocks of a tile's slices are resident at once
// (the grid is persistent) and take their work units in order, so the wait ends.
//
// Workspace: a slot per tile, consumer part and slice but the last (BM x BN floats a tile), then
// an int counter per tile and part, zero before the launch (make() zeroes them unless the caller
// says they are) and left zero by the last slice.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "tessera/core/status.hpp"
#include "tessera/gemm/sm90/mainloop.hpp"
#include "tessera/gemm/sm90/work.hpp"
#include "tessera/pipeline/warp_specialized.hpp"

namespace tessera::gemm::sm90 {

template <class Cfg>
struct SplitK {
  using Accum = typename Mainloop<Cfg>::Accum;
  static constexpr bool ping_pong = Cfg::ping_pong;
  static constexpr int Parts = ping_pong ? 1 : Cfg::consumer_warpgroups;  // accumulator sets per tile

  struct Params {
    float* partials;  // the slots
    int* counters;    // after them
  };

  // Bytes of the counters of `padded_tiles` tiles (after the partial sums; a 16-byte multiple).
  static constexpr std::size_t counter_bytes(std::size_t padded_tiles) { return (padded_tiles * Parts * sizeof(int) + 15) / 16 * 16; }
  // The workspace a split into `split` slices needs (0 unsplit).
  static constexpr std::size_t workspace_bytes(std::size_t padded_tiles, int split) {
    return split > 1 ? padded_tiles * std::size_t(split - 1) * Cfg::BM * Cfg::BN * sizeof(float) + counter_bytes(padded_tiles) : 0;
  }

  // The workspace of a split into `split` slices (WorkGrid::k_splits) of `padded_tiles` tiles
  // (WorkGrid::padded_tiles()).
  static Status make(int split, std::size_t padded_tiles, void* workspace, bool workspace_zeroed, cudaStream_t stream, Params& out) {
    out.partials = nullptr;
    out.counters = nullptr;
    if (split > 1) {
      out.partials = static_cast<float*>(workspace);
      out.counters = reinterpret_cast<int*>(out.partials + padded_tiles * std::size_t(split - 1) * Cfg::BM * Cfg::BN);
      cudaError_t const e = workspace_zeroed ? cudaSuccess : cudaMemsetAsync(out.counters, 0, counter_bytes(padded_tiles), stream);
      if (e != cudaSuccess) return Status::device_error(std::string("zeroing the split-K counters failed: ") + cudaGetErrorString(e));
    }
    return Status::success();
  }

  // Consumer c's part of unit u of a split into k_splits slices, rows from row_base (D has m rows):
  // true for the last slice, whose accumulators then hold the whole sum.
  TESSERA_DEVICE static bool reduce(Params const& p, int k_splits, Accum& acc, WorkUnit const& u, int row_base, int m, int c, int thread) {
    constexpr int values = Accum::values;  // per thread
    int const part = ping_pong ? 0 : c;
    int* const counter = p.counters + u.tile_id * Parts + part;
    auto slot = [&](int slice) {
      return reinterpret_cast<float2*>(p.partials + ((std::int64_t(u.tile_id) * (k_splits - 1) + slice) * Parts + part) * (128 * values));
    };
    // The pairs of values (v, v + 1) go to a slot as float2, thread-interleaved: pair q of a thread
    // at q * 128 + thread.
    auto row_in = [&](int mh, int v) { return row_base + Accum::row(thread, mh, v) < m; };
    auto pair = [&](int mh, int v) { return (mh * Accum::values_per_half + v) / 2 * 128 + thread; };
    if (u.slice < k_splits - 1) {
      float2* const out = slot(u.slice);
      TESSERA_UNROLL
      for (int mh = 0; mh < Accum::m_halves; ++mh)
        TESSERA_UNROLL
        for (int v = 0; v < Accum::values_per_half; v += 2)
          if (row_in(mh, v)) out[pair(mh, v)] = float2{acc.regs[mh][v], acc.regs[mh][v + 1]};
      __threadfence();
      pipeline::consumer_barrier(c);
      if (thread == 0) atomicAdd(counter, 1);
      return false;
    }
    if (thread == 0) {
      // 64 ns between polls. Against a pure spin it made no difference on the H100 (2026-11-25,
      // 3 alternating rounds, N = 4096, K = 14336 with its automatic split: M = 16 52.11 us
      // against 52.08 spinning, M = 128 55.03 against 55.08); the sleeping thread leaves its issue
      // slots to the block's other warps.
      while (*reinterpret_cast<int volatile*>(counter) < k_splits - 1) __nanosleep(64);
      __threadfence();
      *counter = 0;  // every other slice has counted: none touches it again in this launch
    }
    pipeline::consumer_barrier(c);
    // Eight pairs at a time over all slices: a bounded number of loads in flight (all of them at
    // once would need registers the accumulators hold).
    constexpr int group = 8;
    TESSERA_UNROLL
    for (int mh = 0; mh < Accum::m_halves; ++mh)
      TESSERA_UNROLL
      for (int v0 = 0; v0 < Accum::values_per_half; v0 += 2 * group) {
        // Not unrolled, as before the kernel was split into pieces: unrolled (twice, plus a
        // remainder), the 32-column decode kernels issued 24 loads where they had issued 8, and
        // M = 1 and 16, N = K = 4096 ran 1.3% and 1.6% slower on the H100 (2026-11-25, 4
        // alternating rounds: 20.67 / 21.16 us against 20.40 / 20.83); this restores the loop.
        TESSERA_UNROLL_N(1)
        for (int slice = 0; slice < k_splits - 1; ++slice) {
          float2 const* const in = slot(slice);
          TESSERA_UNROLL
          for (int v = v0; v < v0 + 2 * group; v += 2)
            if (row_in(mh, v)) {
              float2 const x = __ldcg(in + pair(mh, v));
              acc.regs[mh][v] += x.x;
              acc.regs[mh][v + 1] += x.y;
            }
        }
      }
    return true;
  }
};

}  // namespace tessera::gemm::sm90
