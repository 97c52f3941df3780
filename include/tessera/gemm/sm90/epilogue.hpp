// The sm90 GEMM's epilogue: a consumer's accumulators (tile::WgmmaAccum) through the chain
// (Cfg::Epilogue, with each output's coordinates), the per-tensor scales and D's amax, converted
// to D's type and stored by the tile store (epilogue/sm90_tile_store.hpp).
//
// A tile's epilogue runs in one of two instantiations, chosen once per tile: a general one (D's
// coordinates swapped or not, amax or not, bounds), and one for a tile of a plain GEMM inside D,
// where what is known at compile time costs nothing per output: a per-column operand (a bias) is
// loaded once for both rows of a thread's pair, and a plain GEMM spends about two instructions on
// an output. (Two, not more: each one compiles the whole chain; the identity chain, which costs
// nothing to compile, has a third without the scales.)
//
// The chain's column vectors (a per-column bias, scale or shift; epilogue/chain.hpp) are staged
// per tile where the Config leaves room (Cfg::column_vector_bytes_sm90): each consumer's copy of
// the tile's BN values of each, as floats. Thread t loads columns t, t + 128, ... when the tile
// starts (the mainloop hides their latency) and stores them to the copy before the epilogue, whose
// interior form reads them there instead of from global memory.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/arch/shuffle.hpp"
#include "tessera/core/status.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/epilogue/sm90_tile_store.hpp"
#include "tessera/gemm/config_check.hpp"
#include "tessera/gemm/sm90/mainloop.hpp"
#include "tessera/pipeline/warp_specialized.hpp"

namespace tessera::gemm::sm90 {

template <class Cfg>
struct Epilogue {
  using ED = typename Cfg::ElementD;
  using Chain = typename Cfg::Epilogue;
  using Accum = typename Mainloop<Cfg>::Accum;
  static constexpr int BN = Cfg::BN, Rows = Accum::rows, MHalves = Accum::m_halves;
  // Chunks of EpiCols columns (16 where BN is an odd multiple of 16); Buffers staging buffers per
  // consumer (gemm::epilogue_buffers_sm90).
  static constexpr int EpiCols = epilogue_columns_sm90(BN), Buffers = Cfg::epilogue_buffers_sm90;
  using Store = epilogue::Sm90TileStore<ED, Accum, EpiCols, Buffers>;
  using Pair = typename Store::Pair;
  static constexpr bool identity_chain = std::is_same_v<Chain, epilogue::Identity>;
  static constexpr int ColumnVectors = epilogue::column_vectors_of<Chain>;
  static constexpr bool stage_columns = Cfg::column_vector_bytes_sm90 > 0;
  static_assert(!stage_columns || epilogue::ColumnStage<Chain>,
                "gemm::sm90: an epilogue that declares column_vectors must read them staged too (epilogue/chain.hpp)");
  static constexpr int column_floats = stage_columns ? ColumnVectors * BN : 0;  // per consumer
  // A source matrix of the chain (a residual, C: epilogue/chain.hpp) read a tile's block at a time
  // through the staging buffers (Store::SourceTile) where it and D are 16-bit; at run time, where
  // it is row-major with 16-byte aligned rows (Params::stage_source).
  using SourceElement = typename Chain::Source;
  static constexpr int source_bytes = [] {
    if constexpr (std::is_void_v<SourceElement>) return 0;
    else return int(sizeof(SourceElement));
  }();
  static constexpr bool sourced = Chain::source_matrices == 1 && source_bytes == 2 && sizeof(ED) == 2;
  static constexpr int ColumnParts = (BN + 127) / 128, ColumnLoads = stage_columns ? ColumnVectors * ColumnParts : 1;

  struct Params {
    typename Store::Params store;
    Chain chain;
    // Per-tensor scales (null: 1) and D's absolute maximum before scale_d (null: none; zeroed by make).
    float const *scale_a, *scale_b, *scale_d;
    float* amax;
    // The kernel computes D^T = B^T A^T (Arguments::swap_ab; m, n and D's strides are the
    // transposed problem's): the chain gets coordinates (col, row).
    bool swap_ab;
    // Batch entries as column blocks of one output for the chain (epilogue::Coord::in_batch; a
    // grouped convolution's); 0 in a GEMM (make).
    int batch_columns;
    bool stage_source;  // the chain's source matrix goes through the staging buffers (sourced)
  };

  // args: d, ldd, d_order, m, n, batch_count, batch_stride_d, epilogue, scale_a, scale_b, scale_d,
  // amax_d, swap_ab, as gemm::Arguments has them.
  template <class Args>
  static Status make(Args const& args, bool d_row_major, cudaStream_t stream, Params& out) {
    TESSERA_RETURN_IF_ERROR(Store::make(args.d, args.ldd, d_row_major, args.m, args.n, args.batch_count, args.batch_stride_d, out.store));
    out.chain = args.epilogue;
    out.scale_a = args.scale_a;
    out.scale_b = args.scale_b;
    out.scale_d = args.scale_d;
    out.amax = args.amax_d;
    out.swap_ab = args.swap_ab;
    out.batch_columns = 0;
    out.stage_source = false;
    if constexpr (sourced) {
      auto const src = args.epilogue.source();
      std::int64_t const batch_stride = args.batch_count > 1 ? src.batch_stride : 0;
      out.stage_source = src.ptr != nullptr && !args.swap_ab && src.col_stride == 1 && reinterpret_cast<std::uintptr_t>(src.ptr) % 16 == 0 &&
                         src.row_stride % 8 == 0 && batch_stride % 8 == 0;
    }
    if (args.amax_d != nullptr) {
      cudaError_t const e = cudaMemsetAsync(args.amax_d, 0, sizeof(float), stream);
      if (e != cudaSuccess) return Status::device_error(std::string("zeroing amax_d failed: ") + cudaGetErrorString(e));
    }
    return Status::success();
  }

  // The scales the epilogue applies around the chain, and this thread's running |max| of D.
  struct Scaling {
    float ab;  // scale_a * scale_b, on the accumulators
    float d;   // scale_d, on the chain's result
    float amax;
    TESSERA_DEVICE explicit Scaling(Params const& p)
        : ab((p.scale_a ? *p.scale_a : 1.0f) * (p.scale_b ? *p.scale_b : 1.0f)), d(p.scale_d ? *p.scale_d : 1.0f), amax(0.0f) {}
  };

  // ---- the column vectors ------------------------------------------------------------------------
  // Whether this launch stages them (not where the kernel computes D^T: its columns are D's rows).
  TESSERA_DEVICE static bool stages_columns(Params const& p) { return stage_columns && !p.swap_ab; }
  TESSERA_DEVICE static void load_columns(Params const& p, int col_base, int batch, int thread, float (&v)[ColumnLoads]) {
    int const chain_base = col_base + batch * p.batch_columns;  // the chain's column (Coord::in_batch)
    TESSERA_UNROLL
    for (int j = 0; j < ColumnVectors; ++j)
      TESSERA_UNROLL
      for (int s = 0; s < ColumnParts; ++s) {
        int const col = 128 * s + thread;
        v[j * ColumnParts + s] = col < BN && col_base + col < p.store.n ? p.chain.column_value(j, chain_base + col) : 0.0f;
      }
  }
  // Consumer c's copy, once the previous epilogue has read it.
  TESSERA_DEVICE static void store_columns(Params const& p, float* columns, int c, int thread, float const (&v)[ColumnLoads]) {
    // The epilogues with TMA stores end with a barrier after their last reads of the copy.
    if (!p.store.tma) pipeline::consumer_barrier(c);
    TESSERA_UNROLL
    for (int j = 0; j < ColumnVectors; ++j)
      TESSERA_UNROLL
      for (int s = 0; s < ColumnParts; ++s)
        if (128 * s + thread < BN) columns[j * BN + 128 * s + thread] = v[j * ColumnParts + s];
    pipeline::consumer_barrier(c);
  }

  // ---- the source tile ---------------------------------------------------------------------------
  // Where the tile's source block starts (batch entries as column blocks: Coord::in_batch), or null
  // where it is not staged (also: a column block not 16-byte aligned).
  TESSERA_DEVICE static char const* source_at(Params const& p, int row_base, int col_base, int batch) {
    if constexpr (sourced) {
      if (!p.stage_source || p.batch_columns % 8 != 0) return nullptr;
      auto const src = p.chain.source();
      epilogue::Coord const at = epilogue::Coord::in_batch(row_base, col_base, batch, p.batch_columns);
      return reinterpret_cast<char const*>(src.ptr + at.batch * src.batch_stride + std::int64_t(at.row) * src.row_stride + at.col);
    } else {
      return nullptr;
    }
  }
  // When a tile starts (the mainloop hides it): its source block into L2, a 128-byte line a
  // thread at a time, so that the epilogue's copies find it there.
  TESSERA_DEVICE static void prefetch_source(Params const& p, int row_base, int col_base, int batch, int thread) {
    if constexpr (sourced) {
      if (row_base + Rows > p.store.m || col_base + BN > p.store.n) return;  // edge tiles read their elements themselves
      char const* const at = source_at(p, row_base, col_base, batch);
      if (at == nullptr) return;
      // A row's BN x 2 bytes start 16-byte aligned, so they touch up to one line more than
      // BN x 2 / 128: each row's lines from its first byte's, those that hold any of its bytes.
      constexpr int lines = (BN * 2 + 127) / 128 + 1;
      std::int64_t const row_bytes = p.chain.source().row_stride * 2;
      TESSERA_UNROLL
      for (int i = thread; i < Rows * lines; i += 128) {
        char const* const row = at + (i / lines) * row_bytes;
        char const* const line = reinterpret_cast<char const*>(reinterpret_cast<std::uintptr_t>(row) & ~std::uintptr_t(127)) + (i % lines) * 128;
        if (line < row + BN * 2) asm volatile("prefetch.global.L2 [%0];\n" ::"l"(line));
      }
    }
  }

  // ---- a tile ------------------------------------------------------------------------------------
  // Consumer c's tile at (row_base, col_base) of batch entry `batch`.
  TESSERA_DEVICE static void apply(Params const& p, Accum const& acc, int row_base, int col_base, int batch, int c, int thread, char* staging,
                                   int& chunk, Scaling& scaling, float const* columns) {
    if (!p.swap_ab && p.amax == nullptr && row_base + Rows <= p.store.m && col_base + BN <= p.store.n) {
      if constexpr (identity_chain) {
        if (scaling.ab * scaling.d == 1.0f) {
          store<true, false>(p, acc, row_base, col_base, batch, c, thread, staging, chunk, scaling);
          return;
        }
      }
      if constexpr (sourced) {
        if (char const* const at = source_at(p, row_base, col_base, batch)) {
          store<true, true, true>(p, acc, row_base, col_base, batch, c, thread, staging, chunk, scaling, columns,
                                  typename Store::SourceTile{at, p.chain.source().row_stride});
          return;
        }
      }
      store<true>(p, acc, row_base, col_base, batch, c, thread, staging, chunk, scaling, columns);
    } else {
      store<false>(p, acc, row_base, col_base, batch, c, thread, staging, chunk, scaling);
    }
  }

  // After the consumer's last tile: its stores complete, and D's amax (the warp's largest |value|,
  // then one atomic per warp: non-negative floats order as their bits).
  TESSERA_DEVICE static void finish(Params const& p, Scaling const& scaling, int thread) {
    Store::finish(p.store, thread);
    if (p.amax != nullptr) {
      float m = scaling.amax;
      TESSERA_UNROLL
      for (int o = 16; o > 0; o /= 2) m = fmaxf(m, arch::shfl_xor(m, o));
      if (thread % 32 == 0 && m > 0.0f) atomicMax(reinterpret_cast<int*>(p.amax), __float_as_int(m));
    }
  }

 private:
  // Interior: a tile inside D of a GEMM without swap_ab and amax; else both are read at run time
  // and outputs are checked against D's bounds. Scaled: the accumulators are multiplied by
  // scale_a * scale_b (and scale_d after the chain); an Interior tile of the identity chain whose
  // scales are all 1 skips the multiply (one instruction of the four a plain GEMM spends per output).
  // Sourced (an interior tile): the chain's source values come from the staging buffers.
  template <bool Interior, bool Scaled = true, bool Sourced = false>
  TESSERA_DEVICE static void store(Params const& p, Accum const& acc, int row_base, int col_base, int batch, int c, int thread,
                                   char* staging, int& chunk, Scaling& scaling, float const* columns = nullptr,
                                   typename Store::SourceTile const& source = {}) {
    static_assert(Scaled || Interior, "gemm::sm90: only the interior epilogue has an unscaled form");
    static_assert(!Sourced || (Interior && sourced), "gemm::sm90: only an interior tile reads a staged source");
    bool const swap = !Interior && p.swap_ab, amax = !Interior && p.amax != nullptr;
    int const m = p.store.m, n = p.store.n;
    // scale_d folds into the accumulators' scale where nothing between them reads the value.
    constexpr bool fold_d = identity_chain && Interior;
    float const pre = fold_d ? scaling.ab * scaling.d : scaling.ab;
    // Chunk ch's outputs, converted to D's type.
    auto const evaluate = [&](int ch, Pair (&out)[MHalves][Store::ChunkPairs], auto const&... staged_source) {
      TESSERA_UNROLL
      for (int mh = 0; mh < MHalves; ++mh)
        TESSERA_UNROLL
        for (int k = 0; k < Store::ChunkPairs; ++k) {
          int const v = Store::chunk_value(ch, k);
          int const row = row_base + Accum::row(thread, mh, v), col = col_base + Accum::col(thread, mh, v);
          float z[2];
          TESSERA_UNROLL
          for (int e = 0; e < 2; ++e) {
            // Branch-free: an output outside D is evaluated at the nearest coordinate inside it (its
            // stages read operands in bounds) and the result dropped; the loads of a chunk can then
            // all be in flight at once (a branch per element made each wait for the last).
            bool const in = Interior || ((row < m) & (col + e < n));  // no short-circuit branches
            int const r = Interior ? row : min(row, m - 1), cc = Interior ? col + e : min(col + e, n - 1);
            epilogue::Coord const at = swap ? epilogue::Coord{cc, r, batch} : epilogue::Coord::in_batch(r, cc, batch, p.batch_columns);
            float const x = Scaled ? pre * acc.regs[mh][v + e] : acc.regs[mh][v + e];
            // An interior tile's column vectors are staged in `columns` (then never swap_ab).
            float y;
            if constexpr (Sourced) {
              float const value = source_value((staged_source[mh][k], ...), e);
              if constexpr (stage_columns) y = p.chain(x, at, epilogue::ColumnValues{columns + (col + e - col_base), BN}, epilogue::SourceValue{value});
              else y = p.chain(x, at, epilogue::SourceValue{value});
            } else if constexpr (Interior && stage_columns) {
              y = p.chain(x, at, epilogue::ColumnValues{columns + (col + e - col_base), BN});
            } else {
              y = p.chain(x, at);
            }
            if constexpr (!Interior) scaling.amax = fmaxf(scaling.amax, fabsf(in & amax ? y : 0.0f));  // a select, no branch
            float const scaled = fold_d || !Scaled ? y : scaling.d * y;
            z[e] = Interior ? scaled : (in ? scaled : 0.0f);
          }
          if constexpr (sizeof(ED) == 2) out[mh][k] = epilogue::convert_output_packed<ED>(z[0], z[1]);
          else epilogue::convert_output_pair<ED>(z[0], z[1], out[mh][k].v[0], out[mh][k].v[1]);
        }
    };
    if constexpr (Sourced) Store::template store<Interior>(p.store, row_base, col_base, batch, c, thread, staging, chunk, evaluate, source);
    else Store::template store<Interior>(p.store, row_base, col_base, batch, c, thread, staging, chunk, evaluate);
  }
  // Element e of a pair of 16-bit source values, as a float.
  TESSERA_DEVICE static float source_value(std::uint32_t pair, int e) {
    if constexpr (sourced) return epilogue::unpack_half<SourceElement>(pair, e);
    else return 0.0f;
  }
};

}  // namespace tessera::gemm::sm90
