// The gfx9 mainloop's data movement (AMD LDS double buffering): a k-tile of A or B goes from global
// memory into registers while the wavefronts multiply the previous one out of LDS, then from the
// registers into the other LDS buffer.
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

#include "tessera/core/config.hpp"
#include "tessera/tile/smem_layout.hpp"

namespace tessera::pipeline {

// 16 bytes, moved as one vector (global_load_dwordx4, ds_write_b128, ds_read_b128).
struct alignas(16) Vec16 {
  std::uint32_t w[4];
};

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

  // Loads the tile whose (0, 0) is (mn0, k0) of the operand at `src`; elements at mn >= mn_end or
  // k >= k_end read as zero.
  TESSERA_DEVICE void load(E const* src, std::int64_t ld, int mn0, int k0, int mn_end, int k_end, int tid) {
    using Bits = std::conditional_t<sizeof(E) == 1, std::uint8_t, std::conditional_t<sizeof(E) == 2, std::uint16_t, std::uint32_t>>;
    static_assert(sizeof(Bits) == sizeof(E), "pipeline::LdsTileCopy: elements of 1, 2 or 4 bytes");
    TESSERA_UNROLL
    for (int i = 0; i < vectors; ++i) {
      Place const p = place(tid, i);
      int const mn = mn0 + (KMajorSource ? p.row : p.col), k = k0 + (KMajorSource ? p.col : p.row);
      // The vector runs along the source's contiguous dimension: K (K-major) or MN.
      int const along = KMajorSource ? k : mn, along_end = KMajorSource ? k_end : mn_end;
      bool const row_in = KMajorSource ? mn < mn_end : k < k_end;
      Bits const* const at = reinterpret_cast<Bits const*>(src) + (KMajorSource ? std::int64_t(mn) * ld + k : std::int64_t(k) * ld + mn);
      if (Aligned && row_in && along + CH <= along_end) {
        regs[i] = *reinterpret_cast<Vec16 const*>(at);
      } else {
        Bits v[CH];
        TESSERA_UNROLL
        for (int e = 0; e < CH; ++e) v[e] = row_in && along + e < along_end ? at[e] : Bits(0);
        std::memcpy(&regs[i], v, sizeof v);
      }
    }
  }

  // Writes the loaded vectors into the LDS tile `lds` (MN x BK, Tile's layout).
  TESSERA_DEVICE void store(E* lds, int tid) const {
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
