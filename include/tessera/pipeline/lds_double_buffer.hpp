// The gfx9 mainloop's data movement (AMD LDS double buffering): a k-tile of A or B goes from global
// memory into registers while the wavefronts multiply the previous one out of LDS, then from the
// registers into the other LDS buffer. The global loads are buffer loads (arch/gfx9/buffer.hpp)
// through a resource that ends where the operand ends: a thread whose vector lies outside the tile
// loads from an out-of-range offset and gets zeros, without a branch.
//
// In LDS every operand tile is K-major, MN rows of BK elements (tile::SwizzledTile: the 16-byte
// chunks of a row XOR-swizzled by the row), whatever its order in global memory:
//   - a K-major source is copied in 16-byte vectors, written whole (ds_write_b128);
//   - an MN-major source (column-major A, row-major B) is read in 16-byte vectors along MN and
//     written one element at a time, transposed. Consecutive threads take consecutive k of one
//     column of vectors, so that the 32 lanes of a write phase write within one LDS row (a k-tile
//     row of one mn): along MN they would all hit the same bank (rows 8 elements apart).
// MFMA fragments are read back one 16-byte chunk per lane (ds_read_b128): lane l of a wavefront
// reads row l % 32 of a 32-row atom, chunk 2 p + l / 32 of chunk pair p. A chunk holds one or more
// MFMA k-steps' values of that row; both operands use the same chunk-to-k assignment, so the
// products sum over every k exactly once (the order of k within an MFMA does not matter).
//
// The addresses are plain functions of (thread, vector) and (lane, row, chunk pair), so that the
// host bank model (tile/bank_conflicts.hpp, test_lds_banks) checks exactly what the kernel does.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tessera/arch/gfx9/buffer.hpp"
#include "tessera/core/config.hpp"
#include "tessera/tile/smem_layout.hpp"

namespace tessera::pipeline {

// 16 bytes, moved as one vector (buffer_load_dwordx4, ds_write_b128, ds_read_b128).
using Vec16 = arch::gfx9::Dwords4;

// One operand's k-tile: MN x BK elements of E, copied by Threads threads, each holding `vectors`
// 16-byte vectors in registers between load() and store(). KMajorSource: element (mn, k) at
// mn * ld + k in global memory, else at k * ld + mn. Aligned: the source pointer, ld and the batch
// stride are multiples of 16 bytes (the caller checks), so that whole vectors may be loaded.
template <class E, int MN, int BK, int Threads, bool KMajorSource, bool Aligned>
struct LdsTileCopy {
  using Element = E;
  using Tile = tile::SwizzledTile<E, MN, BK>;
  static constexpr int CH = 16 / int(sizeof(E));  // elements per vector
  static constexpr int vectors = MN * BK / CH / Threads;
  static_assert(MN * BK % (CH * Threads) == 0,
                "pipeline::LdsTileCopy: the threads must split the tile into whole 16-byte vectors; use a larger tile "
                "or fewer threads");
  static constexpr bool k_major_source = KMajorSource;

  Vec16 regs[vectors];

  // Vector i of thread tid, in the source's view: its row and the first element of its column
  // (a K-major source: row mn, column k; an MN-major one: row k, column mn).
  struct Place {
    int row, col;
  };
  TESSERA_HD static constexpr Place place(int tid, int i) {
    int const q = tid + i * Threads;
    if constexpr (KMajorSource) return {q / (BK / CH), (q % (BK / CH)) * CH};  // consecutive threads along a row
    else return {q % BK, (q / BK) * CH};                                        // consecutive threads down a column
  }
  // (mn, k) of element e of vector i of thread tid.
  TESSERA_HD static constexpr int mn_of(int tid, int i, int e) {
    Place const p = place(tid, i);
    return KMajorSource ? p.row : p.col + e;
  }
  TESSERA_HD static constexpr int k_of(int tid, int i, int e) {
    Place const p = place(tid, i);
    return KMajorSource ? p.col + e : p.row;
  }
  // The element offset in the LDS tile where store() puts element e of vector i (a K-major vector
  // is stored whole at e = 0's offset).
  TESSERA_HD static constexpr int lds_offset(int tid, int i, int e) {
    return int(Tile::layout()(mn_of(tid, i, e), k_of(tid, i, e)));
  }

  // The number of elements of an operand of MN x K elements, rows (K-major: mn; MN-major: k) ld
  // apart, from its first element to its last: the extent of the buffer loads read from.
  TESSERA_HD static constexpr std::int64_t extent(int mn_size, int k_size, std::int64_t ld) {
    return KMajorSource ? (mn_size - 1) * ld + k_size : (k_size - 1) * ld + mn_size;
  }

  // Where vector i of thread tid of the k-tile comes from: its byte offset from the tile's (0, 0)
  // in the source, or kBufferOutOfRange where it holds no element of the tile (its row is at or
  // past mn_rem / k_rem, the extents left from the tile's origin), and how many of its elements
  // lie before the end of the tile along the vector (CH for a whole one). The offsets stay below
  // 2^31 bytes where the GEMM's argument checks allow the leading dimension.
  struct Source {
    std::uint32_t offset;
    int count;
  };
  TESSERA_HD static constexpr Source source(int tid, int i, std::int64_t ld, int mn_rem, int k_rem) {
    Place const p = place(tid, i);
    bool const row_in = p.row < (KMajorSource ? mn_rem : k_rem);
    int const left = (KMajorSource ? k_rem : mn_rem) - p.col;
    int const count = left < 0 ? 0 : left < CH ? left : CH;
    if (!row_in || count == 0) return {arch::gfx9::kBufferOutOfRange, 0};
    return {std::uint32_t((p.row * ld + p.col) * std::int64_t(sizeof(E))), count};
  }

  // Loads the k-tile whose (0, 0) is (mn0, k0) of the operand at `src` (of `extent` elements,
  // extent()), through a buffer resource made for the tile: whatever lies past the operand's end
  // reads as zero. Elements at k >= k_end read as zero too (they would be summed: past a K slice
  // they belong to the next one). Elements at mn >= mn_end read as zero or as whatever the
  // operand holds there: they feed only rows / columns of D that are never stored.
  TESSERA_HD void load(E const* src, std::int64_t ld, std::int64_t extent, int mn0, int k0, int mn_end, int k_end, int tid) {
    using Bits = std::conditional_t<sizeof(E) == 1, std::uint8_t, std::conditional_t<sizeof(E) == 2, std::uint16_t, std::uint32_t>>;
    static_assert(sizeof(Bits) == sizeof(E), "pipeline::LdsTileCopy: elements of 1, 2 or 4 bytes");
    std::int64_t const origin = KMajorSource ? mn0 * ld + k0 : k0 * ld + mn0;
    auto const res = arch::gfx9::make_buffer_resource(src + origin, std::uint64_t(extent - origin) * sizeof(E));
    int const mn_rem = mn_end - mn0, k_rem = k_end - k0;
    TESSERA_UNROLL
    for (int i = 0; i < vectors; ++i) {
      Source const s = source(tid, i, ld, mn_rem, k_rem);
      if constexpr (Aligned) {
        regs[i] = arch::gfx9::buffer_load<Vec16>(res, s.offset);
        if constexpr (KMajorSource) {
          if (s.count < CH) {  // a vector across k_end: zero the elements past it
            Bits v[CH];
            std::memcpy(v, &regs[i], sizeof v);
            TESSERA_UNROLL
            for (int e = 0; e < CH; ++e) v[e] = e < s.count ? v[e] : Bits(0);
            std::memcpy(&regs[i], v, sizeof v);
          }
        }
      } else {
        Bits v[CH];
        TESSERA_UNROLL
        for (int e = 0; e < CH; ++e)
          v[e] = arch::gfx9::buffer_load<Bits>(res, e < s.count ? s.offset + std::uint32_t(e * sizeof(E)) : arch::gfx9::kBufferOutOfRange);
        std::memcpy(&regs[i], v, sizeof v);
      }
    }
  }

  // Writes the loaded vectors into the LDS tile `lds` (MN x BK, Tile's layout).
  TESSERA_HD void store(E* lds, int tid) const {
    TESSERA_UNROLL
    for (int i = 0; i < vectors; ++i) {
      if constexpr (KMajorSource) {
        *reinterpret_cast<Vec16*>(lds + lds_offset(tid, i, 0)) = regs[i];
      } else {
        E v[CH];
        std::memcpy(v, &regs[i], sizeof v);
        TESSERA_UNROLL
        for (int e = 0; e < CH; ++e) lds[lds_offset(tid, i, e)] = v[e];
      }
    }
  }
};

// MFMA fragments of a 32-row atom from a K-major LDS tile (MN x BK of E): lane `lane` reads the
// 16-byte chunk 2 * pair + lane / 32 of row row0 + lane % 32.
template <class E, int MN, int BK>
struct MfmaFragmentRead {
  using Tile = tile::SwizzledTile<E, MN, BK>;
  static constexpr int CH = 16 / int(sizeof(E));
  static constexpr int chunk_pairs = BK / CH / 2;
  static_assert(BK % (2 * CH) == 0, "pipeline::MfmaFragmentRead: a k-tile row must hold whole pairs of 16-byte chunks");
  TESSERA_HD static constexpr int offset(int lane, int row0, int pair) {
    return int(Tile::layout()(row0 + lane % 32, (2 * pair + lane / 32) * CH));
  }
  TESSERA_DEVICE static Vec16 read(E const* lds, int lane, int row0, int pair) {
    return *reinterpret_cast<Vec16 const*>(lds + offset(lane, row0, pair));
  }
};

}  // namespace tessera::pipeline
