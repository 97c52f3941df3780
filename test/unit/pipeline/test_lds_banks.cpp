// The gfx9 mainloop's LDS accesses under the host bank model of AMD's LDS (tile/bank_conflicts.hpp),
// with the addresses the kernel itself computes (pipeline/lds_double_buffer.hpp):
//   - the 16-byte writes of K-major k-tiles (ds_write_b128) are conflict-free;
//   - the MFMA fragment reads (ds_read_b128, one 16-byte chunk per lane) are conflict-free under
//     both phase groupings: consecutive lanes, and CDNA3's paired quarter groups;
//   - the transposing element writes of MN-major k-tiles: 16-bit and 8-bit ones are conflict-free
//     (the lanes of a phase write within one LDS row), 32-bit ones 2-way (two rows per phase).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "tessera/core/numeric_types.hpp"
#include "tessera/pipeline/lds_double_buffer.hpp"
#include "tessera/tile/bank_conflicts.hpp"

using namespace tessera;
using tile::LdsPhases;

namespace {

// Every wavefront's ds_write_b128 of every vector of a K-major copy.
template <class E, int MN, int BK, int Threads>
void require_conflict_free_writes() {
  using Copy = pipeline::LdsTileCopy<E, MN, BK, Threads, true, true>;
  for (int wave = 0; wave < Threads / 64; ++wave)
    for (int i = 0; i < Copy::vectors; ++i) {
      std::vector<long long> addr(64);
      for (int l = 0; l < 64; ++l) addr[l] = (long long)Copy::lds_offset(64 * wave + l, i, 0) * sizeof(E);
      auto const cost = tile::lds_cycles(addr, 16, LdsPhases::kConsecutive);
      INFO("MN " << MN << ", BK " << BK << ", " << Threads << " threads, wave " << wave << ", vector " << i);
      REQUIRE(cost.ideal == 8);
      REQUIRE(cost.conflicts() == 0);
    }
}

// Every 32-row atom's fragment reads of every chunk pair.
template <class E, int MN, int BK>
void require_conflict_free_reads() {
  using Read = pipeline::MfmaFragmentRead<E, MN, BK>;
  for (int row0 = 0; row0 < MN; row0 += 32)
    for (int pair = 0; pair < Read::chunk_pairs; ++pair) {
      std::vector<long long> addr(64);
      for (int l = 0; l < 64; ++l) addr[l] = (long long)Read::offset(l, row0, pair) * sizeof(E);
      INFO("MN " << MN << ", BK " << BK << ", rows from " << row0 << ", chunk pair " << pair);
      for (LdsPhases p : {LdsPhases::kConsecutive, LdsPhases::kCdna3Read128}) {
        auto const cost = tile::lds_cycles(addr, 16, p);
        REQUIRE(cost.ideal == 8);
        REQUIRE(cost.conflicts() == 0);
      }
    }
}

// The reads cover each (row, k) of an atom's rows exactly once per k-tile, at the element the
// layout puts it: chunk 2 pair + lane / 32 of row lane % 32.
template <class E, int MN, int BK>
void require_reads_cover_the_tile() {
  using Read = pipeline::MfmaFragmentRead<E, MN, BK>;
  constexpr int CH = Read::CH;
  std::vector<int> seen(MN * BK, 0);
  for (int row0 = 0; row0 < MN; row0 += 32)
    for (int pair = 0; pair < Read::chunk_pairs; ++pair)
      for (int l = 0; l < 64; ++l)
        for (int e = 0; e < CH; ++e) {
          int const off = Read::offset(l, row0, pair) + e;
          REQUIRE(off == int(Read::Tile::layout()(row0 + l % 32, (2 * pair + l / 32) * CH + e)));
          ++seen[off];
        }
  for (int s : seen) REQUIRE(s == 1);
}

}  // namespace

TEST_CASE("gfx9 LDS: K-major k-tile writes are conflict-free", "[pipeline][gfx9][banks]") {
  require_conflict_free_writes<half_t, 128, 32, 256>();
  require_conflict_free_writes<half_t, 128, 64, 256>();
  require_conflict_free_writes<half_t, 256, 32, 512>();
  require_conflict_free_writes<bfloat16_t, 64, 32, 256>();
  require_conflict_free_writes<float, 128, 16, 256>();
  require_conflict_free_writes<float, 128, 32, 256>();
  require_conflict_free_writes<std::int8_t, 128, 64, 256>();
  require_conflict_free_writes<std::int8_t, 256, 128, 1024>();
}

TEST_CASE("gfx9 LDS: MFMA fragment reads are conflict-free (consecutive and CDNA3 phases)", "[pipeline][gfx9][banks]") {
  require_conflict_free_reads<half_t, 128, 32>();
  require_conflict_free_reads<half_t, 128, 64>();
  require_conflict_free_reads<half_t, 256, 32>();
  require_conflict_free_reads<float, 128, 16>();
  require_conflict_free_reads<float, 128, 32>();
  require_conflict_free_reads<std::int8_t, 128, 64>();
  require_conflict_free_reads<std::int8_t, 128, 128>();
  require_reads_cover_the_tile<half_t, 128, 32>();
  require_reads_cover_the_tile<float, 64, 16>();
  require_reads_cover_the_tile<std::int8_t, 64, 64>();
}

TEST_CASE("gfx9 LDS: copies place every element of a k-tile once", "[pipeline][gfx9]") {
  auto check = [](auto copy_tag, int mn, int bk) {
    using Copy = decltype(copy_tag);
    std::vector<int> seen(mn * bk, 0);
    for (int t = 0; t < 256; ++t)
      for (int i = 0; i < Copy::vectors; ++i)
        for (int e = 0; e < Copy::CH; ++e) {
          // A K-major vector is stored whole at element 0's offset; an MN-major one element by element.
          int const off = Copy::k_major_source ? Copy::lds_offset(t, i, 0) + e : Copy::lds_offset(t, i, e);
          REQUIRE(off == int(Copy::Tile::layout()(Copy::mn_of(t, i, e), Copy::k_of(t, i, e))));
          ++seen[off];
        }
    for (int s : seen) REQUIRE(s == 1);
  };
  check(pipeline::LdsTileCopy<half_t, 128, 32, 256, true, true>{}, 128, 32);
  check(pipeline::LdsTileCopy<half_t, 128, 32, 256, false, true>{}, 128, 32);
  check(pipeline::LdsTileCopy<std::int8_t, 128, 64, 256, false, false>{}, 128, 64);
}

TEST_CASE("gfx9 LDS: the transposing writes of MN-major k-tiles", "[pipeline][gfx9][banks]") {
  // Each thread writes its vector's CH elements one at a time (ds_write_b16 / _b8 / _b32): lane l
  // writes element e of its vector in write e. Sub-word writes are modelled as their 4-byte word
  // (lanes writing halves of one word share it); b32 and narrower go 32 lanes per phase.
  auto worst = [](auto copy_tag, int threads) {
    using Copy = decltype(copy_tag);
    using E = typename Copy::Element;
    int w = 0;
    for (int wave = 0; wave < threads / 64; ++wave)
      for (int i = 0; i < Copy::vectors; ++i)
        for (int e = 0; e < Copy::CH; ++e) {
          std::vector<long long> addr(64);
          for (int l = 0; l < 64; ++l) addr[l] = (long long)Copy::lds_offset(64 * wave + l, i, e) * int(sizeof(E)) / 4 * 4;
          auto const cost = tile::lds_cycles(addr, 4, LdsPhases::kConsecutive);
          w = std::max(w, cost.wavefronts / cost.ideal);
        }
    return w;
  };
  CHECK(worst(pipeline::LdsTileCopy<half_t, 128, 32, 256, false, true>{}, 256) == 1);
  CHECK(worst(pipeline::LdsTileCopy<half_t, 128, 64, 256, false, true>{}, 256) == 1);
  CHECK(worst(pipeline::LdsTileCopy<bfloat16_t, 256, 32, 512, false, true>{}, 512) == 1);
  CHECK(worst(pipeline::LdsTileCopy<std::int8_t, 128, 64, 256, false, true>{}, 256) == 1);
  CHECK(worst(pipeline::LdsTileCopy<float, 128, 16, 256, false, true>{}, 256) == 2);
}
