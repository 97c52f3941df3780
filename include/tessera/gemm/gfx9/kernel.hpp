// The gfx9 GEMM kernel (AMD CDNA2 / CDNA3, built with hipcc): D = epilogue(A * B), one block per
// work item (an output tile of one batch entry and one K slice), as the sm80 kernel.
//
// Mainloop: two LDS buffers (pipeline/lds_double_buffer.hpp). While the wavefronts multiply k-tile
// kt out of one buffer, the next k-tile travels from global memory into registers; after the
// MFMAs it is written into the other buffer, and one barrier per k-tile separates the two uses of
// each buffer. The k-tiles are read with buffer loads, whose range check zeroes what lies past an
// operand's end. Each wavefront computes a WM x WN tile of 32 x 32 MFMA atoms; its fragments are
// 16-byte LDS reads (one chunk per lane), each feeding one or more MFMA k-steps. K residues read as
// zero; M and N residues feed only outputs that are never stored.
// Epilogue: each lane holds, per atom, 16 values of one column of D (rows in groups of four,
// atom/mma_gfx9.hpp); the chain runs on each with its (row, col) and the result is stored
// directly (split-K: floats into the workspace, summed by gemm::reduce_splits).
// The operand loader is a parameter (its contract: gemm/gfx9/tiled_loader.hpp): the GEMM's tiled
// loads, or a convolution's im2col gathers (conv/gfx9/im2col_loader.hpp).
// tessera-header: hip-only
#pragma once

#include <cstdint>
#include <cstring>

#include "tessera/arch/arch.hpp"
#include "tessera/atom/mma_gfx9.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/gemm/data_parallel.hpp"
#include "tessera/gemm/gfx9/tiled_loader.hpp"
#include "tessera/pipeline/lds_double_buffer.hpp"

namespace tessera::gemm::gfx9 {

template <class Cfg>
using Params = DataParallelParams<Cfg>;

template <class Cfg, class Loader = TiledLoader<Cfg>>
struct Kernel {
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  using ED = typename Cfg::ElementD;
  using Op = typename Cfg::MmaOp;
  using Traits = atom::MmaTraits<Op>;
  using Acc = std::remove_all_extents_t<typename Op::CRegisters>;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, Threads = Cfg::threads;
  static constexpr int WM = BM / Cfg::warps_m, WN = BN / Cfg::warps_n;  // a wavefront's tile
  static constexpr int AtomsM = WM / Traits::M, AtomsN = WN / Traits::N;
  static constexpr int CValues = Traits::M * Traits::N / 64;  // accumulators per lane and atom
  static_assert(Traits::M == 32 && Traits::N == 32 && Traits::threads == 64, "gemm::gfx9: the kernel takes 32 x 32 MFMA atoms");

  // A 16-byte chunk of a row holds `steps` MFMA k-steps of KL elements each (KL = K / 2: the two
  // halves of the wavefront hold the two halves of an atom's K), `words` registers per step.
  static constexpr int CH = 16 / int(sizeof(EA));
  static constexpr int KL = Traits::K / 2;
  static constexpr int steps = CH / KL, words = KL * int(sizeof(EA)) / 4;
  static_assert(sizeof(EA) == sizeof(EB) && CH % KL == 0 && sizeof(typename Op::ARegisters) == 4 * words,
                "gemm::gfx9: a 16-byte chunk must hold whole MFMA k-steps of both operands");

  using ReadA = pipeline::MfmaFragmentRead<EA, BM, BK>;
  using ReadB = pipeline::MfmaFragmentRead<EB, BN, BK>;
  static constexpr int tile_bytes_a = BM * BK * int(sizeof(EA)), tile_bytes_b = BN * BK * int(sizeof(EB));
  static constexpr int lds_bytes = 2 * (tile_bytes_a + tile_bytes_b);  // A's two buffers, then B's
  static_assert(lds_bytes == Cfg::smem_bytes, "gemm::gfx9: LDS accounting differs from the Config's");

  // One k-tile's MFMAs out of the LDS buffers at sa, sb, for the wavefront at (m0, n0).
  TESSERA_DEVICE static void multiply(Acc (&acc)[AtomsM][AtomsN][CValues], EA const* sa, EB const* sb, int lane, int m0,
                                      int n0) {
    TESSERA_UNROLL
    for (int pair = 0; pair < ReadA::chunk_pairs; ++pair) {
      pipeline::Vec16 fa[AtomsM], fb[AtomsN];
      TESSERA_UNROLL
      for (int i = 0; i < AtomsM; ++i) fa[i] = ReadA::read(sa, lane, m0 + 32 * i, pair);
      TESSERA_UNROLL
      for (int j = 0; j < AtomsN; ++j) fb[j] = ReadB::read(sb, lane, n0 + 32 * j, pair);
      TESSERA_UNROLL
      for (int s = 0; s < steps; ++s) {
        TESSERA_UNROLL
        for (int i = 0; i < AtomsM; ++i) {
          typename Op::ARegisters a;
          std::memcpy(&a, &fa[i].w[s * words], sizeof a);
          TESSERA_UNROLL
          for (int j = 0; j < AtomsN; ++j) {
            typename Op::BRegisters b;
            std::memcpy(&b, &fb[j].w[s * words], sizeof b);
            Op::fma(acc[i][j], a, b, acc[i][j]);
          }
        }
      }
    }
  }

  // One block per work item. The loader's Params are the GEMM's (Params<Cfg>) or extend them.
  TESSERA_DEVICE static void run(typename Loader::Params const& p, char* lds) {
    int const tid = int(threadIdx.x), lane = tid % 64, wave = tid / 64;
    int const m0 = (wave % Cfg::warps_m) * WM, n0 = (wave / Cfg::warps_m) * WN;
    WorkItem const w = work_item(p, int(blockIdx.x));
    EA* const lds_a = reinterpret_cast<EA*>(lds);
    EB* const lds_b = reinterpret_cast<EB*>(lds + 2 * tile_bytes_a);

    Acc acc[AtomsM][AtomsN][CValues];
    TESSERA_UNROLL
    for (int i = 0; i < AtomsM; ++i)
      TESSERA_UNROLL
      for (int j = 0; j < AtomsN; ++j)
        TESSERA_UNROLL
        for (int v = 0; v < CValues; ++v) acc[i][j][v] = Acc(0);

    Loader loader(p, w, tid);
    auto const store = [&](int buffer) { loader.store(lds_a + buffer * BM * BK, lds_b + buffer * BN * BK, tid); };
    int const k_tiles = loader.k_tiles;
    if (k_tiles > 0) {
      loader.load(p, 0, tid);
      store(0);
      __syncthreads();
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
      int const buffer = kt % 2;
      bool const next = kt + 1 < k_tiles;
      if (next) loader.load(p, kt + 1, tid);  // in flight during the MFMAs
      multiply(acc, lds_a + buffer * BM * BK, lds_b + buffer * BN * BK, lane, m0, n0);
      if (next) store(1 - buffer);  // the other buffer: its last readers passed the previous barrier
      __syncthreads();
    }
    epilogue(p, acc, w, lane, m0, n0);
  }

  // Value v of lane `lane` of an atom sits at (row_of(lane, v), col_of(lane)) of the atom.
  TESSERA_HD static constexpr int row_of(int lane, int v) { return int(Traits::c_layout()(lane, v)) % Traits::M; }
  TESSERA_HD static constexpr int col_of(int lane) { return int(Traits::c_layout()(lane, 0)) / Traits::M; }

  // f(row, col, value) for each accumulator of the lane, at its coordinates in D.
  template <class F>
  TESSERA_DEVICE static void for_each_value(Acc const (&acc)[AtomsM][AtomsN][CValues], int row0, int col0, int lane, F&& f) {
    TESSERA_UNROLL
    for (int i = 0; i < AtomsM; ++i)
      TESSERA_UNROLL
      for (int j = 0; j < AtomsN; ++j)
        TESSERA_UNROLL
        for (int v = 0; v < CValues; ++v) f(row0 + 32 * i + row_of(lane, v), col0 + 32 * j + col_of(lane), float(acc[i][j][v]));
  }

  TESSERA_DEVICE static void epilogue(Params<Cfg> const& p, Acc const (&acc)[AtomsM][AtomsN][CValues], WorkItem const& w,
                                      int lane, int m0, int n0) {
    int const row0 = w.tm * BM + m0, col0 = w.tn * BN + n0;
    if (p.k_splits > 1) {
      float* const out = p.partials + (std::int64_t(w.split) * p.batch_count + w.batch) * p.m * std::int64_t(p.n);
      for_each_value(acc, row0, col0, lane, [&](int row, int col, float x) {
        if (row < p.m && col < p.n) out[std::int64_t(row) * p.n + col] = x;
      });
      return;
    }
    ED* const d = p.d + w.batch * p.batch_stride_d;
    bool const interior = (w.tm + 1) * BM <= p.m && (w.tn + 1) * BN <= p.n;  // uniform over the block
    for_each_value(acc, row0, col0, lane, [&](int row, int col, float x) {
      if (interior || (row < p.m && col < p.n)) {  // the chain reads operands of D's extent only
        float const y = p.epilogue(x, epilogue::Coord::in_batch(row, col, w.batch, p.batch_columns));
        d[row * p.d_row_stride + col * p.d_col_stride] = epilogue::convert_output<ED>(y);
      }
    });
  }
};

template <class Cfg, bool Aligned>
__global__ void __launch_bounds__(Cfg::threads) gemm_kernel(Params<Cfg> const p) {
  __shared__ __attribute__((aligned(16))) char lds[Kernel<Cfg>::lds_bytes];
  Kernel<Cfg, TiledLoader<Cfg, Aligned>>::run(p, lds);
}

// The kernel with another operand loader (a convolution's gather loader): its parameters are the
// loader's.
template <class Cfg, class Loader>
__global__ void __launch_bounds__(Cfg::threads) loader_kernel(typename Loader::Params const p) {
  __shared__ __attribute__((aligned(16))) char lds[Kernel<Cfg, Loader>::lds_bytes];
  Kernel<Cfg, Loader>::run(p, lds);
}

}  // namespace tessera::gemm::gfx9
