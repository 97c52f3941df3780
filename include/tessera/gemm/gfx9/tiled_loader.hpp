// The gfx9 GEMM's operand loader: a work item's k-tiles of A (BM x BK) and B (BN x BK) through
// buffer loads into registers, then into the LDS tiles (pipeline/lds_double_buffer.hpp). The piece
// a convolution replaces with its im2col gather loader (conv/gfx9/im2col_loader.hpp); the mainloop,
// the epilogue and the kernel stay as they are.
//
// A loader of the gfx9 kernel (Kernel<Cfg, Loader> in gemm/gfx9/kernel.hpp) provides
//   using Params = ...;                                   // DataParallelParams<Cfg> or a struct derived from it
//   Loader(Params const& p, WorkItem const& w, int tid);  // every thread of the block
//   int k_tiles;                                          // the work item's k-tiles (its K slice)
//   void load(Params const& p, int kt, int tid);          // k-tile kt of the work item: global -> registers
//   void store(EA* lds_a, EB* lds_b, int tid) const;      // those registers -> one LDS buffer of A and of B
// load is called for kt = 0, 1, 2, ... in order; store after each load, into the buffer the
// mainloop names (both K-major tile::SwizzledTile, as LdsTileCopy::store writes them). Elements
// past the work item's K must arrive as zeros (they meet the other operand's values in the MFMAs);
// rows past M or N may hold anything (they feed only outputs that are never stored).
//
// Host code can run a loader too (buffer_load's host model), as the unit tests do.
#pragma once

#include <cstdint>

#include "tessera/core/config.hpp"
#include "tessera/gemm/data_parallel.hpp"
#include "tessera/pipeline/lds_double_buffer.hpp"

namespace tessera::gemm::gfx9 {

// The K a work item sums: elements begin .. end - 1 of the GEMM's K, `tiles` k-tiles of BK.
struct KSlice {
  int begin, end, tiles;
  template <class Params>
  TESSERA_HD static KSlice of(Params const& p, WorkItem const& w, int bk) {
    int const begin = w.split * p.k_tiles_per_split * bk, last = begin + p.k_tiles_per_split * bk;
    int const end = p.k < last ? p.k : last;
    return {begin, end, end > begin ? (end - begin + bk - 1) / bk : 0};
  }
};

// Aligned: A's and B's pointers, leading dimensions and batch strides are multiples of 16 bytes
// (gemm.hpp checks), so that whole vectors are loaded; else element by element.
template <class Cfg, bool Aligned = true>
struct TiledLoader {
  using Params = DataParallelParams<Cfg>;
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, Threads = Cfg::threads;
  using CopyA = pipeline::LdsTileCopy<EA, BM, BK, Threads, Cfg::a_k_major, Aligned>;
  using CopyB = pipeline::LdsTileCopy<EB, BN, BK, Threads, Cfg::b_k_major, Aligned>;

  KSlice slice;
  int k_tiles;
  EA const* a;
  EB const* b;
  std::int64_t extent_a, extent_b;
  // The tile's origin is computed in load(), not kept: kept, hipcc 5.2 moved the buffer resources
  // of the NN GEMM (f16, gfx940) into VGPRs and wrapped each load in a waterfall loop (+133
  // instructions).
  WorkItem w;
  CopyA copy_a;
  CopyB copy_b;

  TESSERA_HD TiledLoader(Params const& p, WorkItem const& w_, int)
      : slice(KSlice::of(p, w_, BK)),
        k_tiles(slice.tiles),
        a(p.a + w_.batch * p.batch_stride_a),
        b(p.b + w_.batch * p.batch_stride_b),
        extent_a(CopyA::extent(p.m, p.k, p.lda)),
        extent_b(CopyB::extent(p.n, p.k, p.ldb)),
        w(w_) {}
  TESSERA_HD void load(Params const& p, int kt, int tid) {
    copy_a.load(a, p.lda, extent_a, w.tm * BM, slice.begin + kt * BK, p.m, slice.end, tid);
    copy_b.load(b, p.ldb, extent_b, w.tn * BN, slice.begin + kt * BK, p.n, slice.end, tid);
  }
  TESSERA_HD void store(EA* lds_a, EB* lds_b, int tid) const {
    copy_a.store(lds_a, tid);
    copy_b.store(lds_b, tid);
  }
};

}  // namespace tessera::gemm::gfx9
