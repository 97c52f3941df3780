// The sm90 tile store: a consumer warpgroup's outputs, held as a tile::WgmmaAccum's fragment and
// converted to D's type, to global memory. The GEMM's epilogue uses it; attention's O will too.
//
// The outputs go a chunk at a time: EpiCols columns of the fragment's rows (its values
// EpiCols / 2 * ch .. + EpiCols / 2 - 1 of each half, as ChunkPairs pairs per half and thread; see
// chunk_value). Where D is row-major and TMA can write it (Params::tma), a chunk goes through one
// of the consumer's Buffers swizzled staging buffers (stmatrix for 16-bit D) and one thread stores
// it with TMA, which clips the edges; chunks go in groups with one barrier per group (see
// staging_group). Elsewhere (column-major or misaligned D) the threads store their values directly.
//
//   using Store = epilogue::Sm90TileStore<bfloat16_t, Accum, 32, 4>;
//   Store::store<Interior>(p, row_base, col_base, batch, c, thread, staging, chunk,
//                          [&](int ch, Store::Pair (&out)[Store::MHalves][Store::ChunkPairs]) { ... });
//   Store::finish(p, thread);   // after the consumer's last tile
// tessera-header: cuda-only
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/arch/sm80/cp_async.hpp"
#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address, ldmatrix_x4
#include "tessera/arch/sm90/stmatrix.hpp"
#include "tessera/arch/sm90/tensor_map.hpp"
#include "tessera/arch/sm90/tma.hpp"
#include "tessera/arch/sm90/wgmma.hpp"  // fence_proxy_async_shared
#include "tessera/core/status.hpp"
#include "tessera/pipeline/warp_specialized.hpp"
#include "tessera/tile/smem_layout.hpp"
#include "tessera/tile/wgmma_accum.hpp"

namespace tessera::epilogue {

template <class ED, class Accum, int EpiCols, int Buffers>
struct Sm90TileStore {
  static constexpr int Rows = Accum::rows, Cols = Accum::cols, MHalves = Accum::m_halves;
  static constexpr int Chunks = Cols / EpiCols, ChunkPairs = EpiCols / 4;  // pairs per half and thread
  static_assert(Cols % EpiCols == 0 && EpiCols % 16 == 0,
                "epilogue::Sm90TileStore: chunks are whole 16-column steps that tile the fragment; use EpiCols = 16 or 32");
  // The staging buffer of one chunk: Rows x EpiCols elements of D, swizzled over their rows as
  // TMA's 32/64/128-byte swizzle (= the row's bytes).
  using Tile = tile::SwizzledTile<ED, Rows, EpiCols>;
  static constexpr int buffer_bytes = Rows * EpiCols * int(sizeof(ED));
  static_assert(buffer_bytes % 1024 == 0 || sizeof(ED) == 1, "epilogue::Sm90TileStore: staging buffers must keep the swizzle alignment");

  // A pair of outputs: for 16-bit D one word, as cvt.rn.{bf16,f16}x2 writes it and stmatrix and a
  // paired store read it (two halves would be unpacked and packed again: two instructions a pair).
  struct alignas(2 * sizeof(ED)) Elements {
    ED v[2];
  };
  using Pair = std::conditional_t<sizeof(ED) == 2, std::uint32_t, Elements>;
  using Chunk = Pair[MHalves][ChunkPairs];

  // Pair k of a chunk ch is values chunk_value(ch, k) and + 1 of each half of the fragment.
  TESSERA_HD static constexpr int chunk_value(int ch, int k) { return EpiCols / 2 * ch + 2 * k; }

  struct Params {
    arch::sm90::TmaDescriptor map;  // 3-D: (N, M, batch), boxes of EpiCols x Rows; if tma
    bool tma;                       // D is stored with TMA (row-major, 16-byte aligned rows)
    ED* d;
    std::int64_t row_stride, col_stride, batch_stride;  // elements
    int m, n;
  };

  // D (m x n, `row_major` or column-major with leading dimension ld, batch entries batch_stride
  // apart) goes through TMA where it is row-major with 16-byte aligned rows and n a whole number of
  // 16-byte chunks (TMA stores whole chunks: it would write past n into the padding).
  static Status make(ED* d, std::int64_t ld, bool row_major, int m, int n, int batch_count, std::int64_t batch_stride, Params& out) {
    out.d = d;
    out.row_stride = row_major ? ld : 1;
    out.col_stride = row_major ? 1 : ld;
    out.batch_stride = batch_stride;
    out.m = m;
    out.n = n;
    constexpr std::int64_t per16 = 16 / std::int64_t(sizeof(ED));
    std::int64_t const stride = batch_count > 1 ? batch_stride : 0;
    out.tma = row_major && reinterpret_cast<std::uintptr_t>(d) % 16 == 0 && ld % per16 == 0 && stride % per16 == 0 && n % per16 == 0;
    if (!out.tma) return Status::success();
    constexpr int span = EpiCols * int(sizeof(ED));
    constexpr auto swizzle = span == 128 ? arch::sm90::TmaSwizzle::k128B : span == 64 ? arch::sm90::TmaSwizzle::k64B : arch::sm90::TmaSwizzle::k32B;
    return arch::sm90::make_tensor_map_3d(out.map, d, std::uint64_t(n), std::uint64_t(m), std::uint64_t(ld), std::uint64_t(batch_count),
                                          std::uint64_t(batch_count > 1 ? batch_stride : ld * m), std::uint32_t(EpiCols),
                                          std::uint32_t(Rows), swizzle);
  }

  // A tile's block of a source matrix (epilogue/chain.hpp: a residual, C), which store() copies
  // into the staging buffers a group of chunks at a time and hands each thread its fragment's
  // values of (as the pairs of its outputs): 16-bit elements from `at`, the tile's first (16-byte
  // aligned), rows `row_stride` elements apart (a multiple of 8).
  struct SourceTile {
    char const* at;
    std::int64_t row_stride;
  };
  struct NoSource {};

  TESSERA_DEVICE static ED element(Pair const& pair, int e) {
    if constexpr (sizeof(ED) == 2) {
      return ED::from_bits(std::uint16_t(e == 0 ? pair & 0xFFFFu : pair >> 16));
    } else {
      return pair.v[e];
    }
  }

  // The staging protocol. A consumer's Buffers staging buffers form a ring that its tiles' chunks
  // go through in groups of staging_group(Interior) chunks; thread 0 stores each group with TMA,
  // one bulk group per chunk group. The invariant: a buffer is written only once every TMA store
  // that read it has finished reading (cp.async.bulk.wait_group.read), which each size of group
  // keeps in its own way:
  //   - where the buffers hold one group (Sets = 1), thread 0 waits for all earlier stores before
  //     a group is staged, behind a barrier of its own: nothing is assumed of what came before;
  //   - where they hold two or more, the wait rides on the previous group's publishing barrier
  //     (its stores aside, at most Sets - 2 groups still read), which frees the buffers of the
  //     group Sets back: this assumes that the groups before were of the same size.
  // The interior and the general epilogue can group differently (four chunks against two for
  // 128- and 256-wide tiles of 16-bit D), and a consumer runs them in any order. So a store of two
  // sets or more whose other form groups differently starts with the one-set wait: after an
  // interior tile's last group of four (buffers 0-3, its stores in flight), an edge tile's first
  // group of two would otherwise overwrite buffers 0-1 while TMA reads them -- the race of issue
  // 29 (wrong, run-to-run different outputs in the tiles just before the last tile column).
  // Sizes: four chunks of packed 16-bit outputs take 32 registers; interior tiles evaluate four at
  // a time (the best on the H100 for bias + GELU), the general epilogue, which needs more
  // registers, two, and a fragment with two row halves (ping-pong) stages each chunk as soon as it
  // is evaluated.
  TESSERA_HD static constexpr int staging_group(bool interior) {
    return Buffers >= 4 && MHalves == 1 && interior && Chunks % 4 == 0 ? 4 : Buffers >= 4 && Chunks % 2 == 0 ? 2 : 1;
  }

  // The tile at (row_base, col_base) of batch entry `batch`, from consumer c's fragment: the chunks
  // in groups, evaluate(ch, out) filling chunk ch's pairs with nothing between a group's chunks (a
  // bias's loads all in flight). Interior: the tile lies inside D (no bounds checks). `chunk`
  // counts the consumer's staged chunks (the ring's position) across its tiles.
  // With a SourceTile, evaluate(ch, out, source) also gets chunk ch's source values, pair k of
  // half mh in source[mh][k] as out's.
  template <bool Interior, class Evaluate, class Source = NoSource>
  TESSERA_DEVICE static void store(Params const& p, int row_base, int col_base, int batch, int c, int thread, char* staging, int& chunk,
                                   Evaluate&& evaluate, Source const& source = {}) {
    constexpr bool sourced = std::is_same_v<Source, SourceTile>;
    static_assert(!sourced || sizeof(ED) == 2, "epilogue::Sm90TileStore: a source tile is read for 16-bit D only");
    constexpr int Group = staging_group(Interior);
    constexpr bool batched = MHalves == 1;  // else each chunk is staged once evaluated (two row halves' registers)
    constexpr int Sets = Buffers / Group;   // groups the buffers hold
    static_assert(Buffers % Group == 0 && Sets >= 1, "epilogue::Sm90TileStore: the staging buffers must hold whole groups of chunks");
    int const warp = thread / 32, lane = thread % 32;
    // The previous tile may have staged in groups of another size: its last stores may still read
    // any buffer, so this one waits for them before it stages.
    if constexpr (Sets >= 2 && staging_group(!Interior) != Group) {
      if (p.tma) {
        if (thread == 0) arch::sm90::tma_store_wait_read<0>();
        pipeline::consumer_barrier(c);
      }
    }
    // A chunk's buffer: where a tile's chunks fill the buffers a whole number of times, each tile
    // starts at buffer 0 and the index is known at compile time (no address arithmetic).
    auto const buffer = [&](int ch) {
      return staging + (Chunks % Buffers == 0 ? ch % Buffers : (chunk + ch % Group) % Buffers) * buffer_bytes;
    };
    auto const put = [&](int ch, Chunk const& out) {
      if (p.tma) stage(out, buffer(ch), warp, lane, thread);
      else store_direct(p, out, row_base, col_base + EpiCols * ch, batch, thread, Interior);
    };
    // The group of chunks from ch0 is staged: one thread stores it with TMA once all have.
    auto const publish = [&](int ch0) {
      if (!p.tma) return;
      arch::sm90::fence_proxy_async_shared();
      if constexpr (Sets >= 2) {
        if (thread == 0) arch::sm90::tma_store_wait_read<Sets - 2>();
      }
      pipeline::consumer_barrier(c);
      if (thread == 0) {
        TESSERA_UNROLL
        for (int i = 0; i < Group; ++i)
          arch::sm90::tma_store_3d(&p.map, col_base + EpiCols * (ch0 + i), row_base, batch, arch::smem_address(buffer(ch0 + i)));
        arch::sm90::tma_store_commit();
      }
    };
    // Chunk ch evaluated into out, with its source values where there is a source.
    auto const evaluate_chunk = [&](int ch, Chunk& out) {
      if constexpr (sourced) {
        Chunk values;
        read_source(buffer(ch), values, warp, lane);
        evaluate(ch, out, values);
      } else {
        evaluate(ch, out);
      }
    };
    TESSERA_UNROLL
    for (int ch0 = 0; ch0 < Chunks; ch0 += Group) {
      if constexpr (sourced) {
        // The group's buffers are free once every store has read them; each warp then copies the
        // source rows it stages (its own: no block barrier between its reads and its writes).
        if (p.tma) {
          if (thread == 0) arch::sm90::tma_store_wait_read<0>();
          pipeline::consumer_barrier(c);
        }
        TESSERA_UNROLL
        for (int i = 0; i < Group; ++i) copy_source(source, ch0 + i, buffer(ch0 + i), warp, lane);
        arch::cp_async_commit();
        arch::cp_async_wait<0>();
        __syncwarp();
      }
      if constexpr (batched) {
        Pair out[Group][MHalves][ChunkPairs];
        TESSERA_UNROLL
        for (int i = 0; i < Group; ++i) evaluate_chunk(ch0 + i, out[i]);
        if constexpr (Sets == 1 && !sourced) {
          if (p.tma) {
            if (thread == 0) arch::sm90::tma_store_wait_read<0>();
            pipeline::consumer_barrier(c);
          }
        }
        if constexpr (sourced) __syncwarp();  // the warp's source reads before its stages
        TESSERA_UNROLL
        for (int i = 0; i < Group; ++i) put(ch0 + i, out[i]);
      } else {
        static_assert(Sets >= 2, "epilogue::Sm90TileStore: chunks staged one by one need buffers for two groups");
        TESSERA_UNROLL
        for (int i = 0; i < Group; ++i) {
          Pair out[MHalves][ChunkPairs];
          evaluate_chunk(ch0 + i, out);
          if constexpr (sourced) __syncwarp();
          put(ch0 + i, out);
        }
      }
      publish(ch0);
      chunk += Group;
    }
  }

  // After the consumer's last tile: the staging buffers stay valid until TMA has read them.
  TESSERA_DEVICE static void finish(Params const& p, int thread) {
    if (p.tma && thread == 0) arch::sm90::tma_store_wait<0>();
  }

 private:
  // Chunk ch of the source tile into its staging buffer, in stage()'s layout: warp w copies the
  // rows it stages (16 w .. 16 w + 15 of each half), 16 bytes a copy.
  TESSERA_DEVICE static void copy_source(SourceTile const& source, int ch, char* buffer, int warp, int lane) {
    constexpr auto layout = Tile::layout();
    constexpr int pieces = EpiCols / 8;  // 16-byte pieces a row
    TESSERA_UNROLL
    for (int mh = 0; mh < MHalves; ++mh)
      TESSERA_UNROLL
      for (int q = 0; q < EpiCols / 16; ++q) {
        int const i = lane + 32 * q, row = 64 * mh + 16 * warp + i / pieces, col = 8 * (i % pieces);
        arch::cp_async_zfill<16>(arch::smem_address(buffer + int(layout(row, col)) * 2),
                                 source.at + (row * source.row_stride + EpiCols * ch + col) * 2, 16);
      }
  }
  // A thread's values of a chunk of the source tile, from its staging buffer: stage()'s inverse.
  TESSERA_DEVICE static void read_source(char const* buffer, Chunk& values, int warp, int lane) {
    constexpr auto layout = Tile::layout();
    TESSERA_UNROLL
    for (int mh = 0; mh < MHalves; ++mh)
      TESSERA_UNROLL
      for (int jp = 0; jp < EpiCols / 16; ++jp) {
        int const m = lane / 8, row = 64 * mh + 16 * warp + 8 * (m % 2) + lane % 8, col = 8 * (2 * jp + m / 2);
        std::uint32_t r[4];
        arch::ldmatrix_x4(r, arch::smem_address(buffer + int(layout(row, col)) * 2));
        TESSERA_UNROLL
        for (int i = 0; i < 4; ++i) values[mh][4 * jp + i] = r[i];
      }
  }

  // A chunk into its staging buffer: for 16-bit D four 8 x 8 matrices per stmatrix (matrix i of
  // step jp holds pairs 4 jp + i; lane l gives the address of row l % 8 of matrix l / 8), else one
  // pair per thread at its place in the fragment.
  TESSERA_DEVICE static void stage(Chunk const& out, char* buffer, int warp, int lane, int thread) {
    constexpr auto layout = Tile::layout();
    TESSERA_UNROLL
    for (int mh = 0; mh < MHalves; ++mh) {
      if constexpr (sizeof(ED) == 2) {
        TESSERA_UNROLL
        for (int jp = 0; jp < EpiCols / 16; ++jp) {
          int const m = lane / 8, row = 64 * mh + 16 * warp + 8 * (m % 2) + lane % 8, col = 8 * (2 * jp + m / 2);
          arch::sm90::stmatrix_x4(arch::smem_address(buffer + int(layout(row, col)) * 2), out[mh][4 * jp], out[mh][4 * jp + 1],
                                  out[mh][4 * jp + 2], out[mh][4 * jp + 3]);
        }
      } else {
        TESSERA_UNROLL
        for (int k = 0; k < ChunkPairs; ++k) {
          int const row = Accum::row(thread, mh, chunk_value(0, k)), col = Accum::col(thread, mh, chunk_value(0, k));
          *reinterpret_cast<Pair*>(buffer + int(layout(row, col)) * int(sizeof(ED))) = out[mh][k];
        }
      }
    }
  }

  // A chunk straight to D (col0: the chunk's first column): pairs as one store where D is
  // row-major and pairs are aligned, else element by element.
  TESSERA_DEVICE static void store_direct(Params const& p, Chunk const& out, int row_base, int col0, int batch, int thread, bool interior) {
    ED* const d = p.d + batch * p.batch_stride;
    bool const pairs = p.col_stride == 1 && p.row_stride % 2 == 0 && p.batch_stride % 2 == 0 &&
                       reinterpret_cast<std::uintptr_t>(p.d) % sizeof(Pair) == 0;
    TESSERA_UNROLL
    for (int mh = 0; mh < MHalves; ++mh)
      TESSERA_UNROLL
      for (int k = 0; k < ChunkPairs; ++k) {
        int const row = row_base + Accum::row(thread, mh, chunk_value(0, k)), col = col0 + Accum::col(thread, mh, chunk_value(0, k));
        bool const in0 = interior || (row < p.m && col < p.n), in1 = interior || (row < p.m && col + 1 < p.n);
        ED* const at = d + row * p.row_stride + col * p.col_stride;
        if (pairs && in1) {
          *reinterpret_cast<Pair*>(at) = out[mh][k];
        } else {
          if (in0) at[0] = element(out[mh][k], 0);
          if (in1) at[p.col_stride] = element(out[mh][k], 1);
        }
      }
  }
};

}  // namespace tessera::epilogue
