// Swizzled shared-memory tiles: ldmatrix reads and cp.async writes touch every bank once per
// phase (0 conflicts by the bank model), while the unswizzled tile would conflict.
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <vector>

#include "tessera/core/numeric_types.hpp"
#include "tessera/tile/bank_conflicts.hpp"
#include "tessera/tile/smem_layout.hpp"

using namespace tessera;

TEST_CASE("the bank model", "[tile][bank]") {
  std::vector<long long> linear(32), same_bank(32), broadcast(32, 64);
  for (int t = 0; t < 32; ++t) {
    linear[t] = 4 * t;
    same_bank[t] = 128 * t;
  }
  CHECK(tile::smem_wavefronts(linear, 4).conflicts() == 0);
  CHECK(tile::smem_wavefronts(same_bank, 4).wavefronts == 32);
  CHECK(tile::smem_wavefronts(broadcast, 4).conflicts() == 0);
  std::vector<long long> rows16(32);
  for (int t = 0; t < 32; ++t) rows16[t] = 16 * t;  // 4 phases of 8 x 16 bytes
  CHECK(tile::smem_wavefronts(rows16, 16).wavefronts == 4);
  CHECK(tile::smem_wavefronts(rows16, 16).conflicts() == 0);
}

namespace {

template <class Elem, int Rows, int Cols>
void check_tile() {
  using Tile = tile::SwizzledTile<Elem, Rows, Cols>;
  auto const l = Tile::layout();
  constexpr int E = Tile::elements_per_chunk;
  // The layout is a permutation of the tile.
  std::set<int> seen;
  for (int r = 0; r < Rows; ++r)
    for (int c = 0; c < Cols; ++c) seen.insert(int(l(r, c)));
  REQUIRE(int(seen.size()) == Rows * Cols);
  REQUIRE(*seen.rbegin() == Rows * Cols - 1);
  // 16-byte chunks stay contiguous.
  for (int r = 0; r < Rows; ++r)
    for (int c = 0; c < Cols; c += E)
      for (int e = 1; e < E; ++e) REQUIRE(l(r, c + e) == l(r, c) + e);
  // ldmatrix: 8 consecutive rows, one chunk column, per phase.
  for (int r0 = 0; r0 < Rows; r0 += 8)
    for (int c = 0; c < Cols; c += E) {
      std::vector<long long> addr;
      for (int r = r0; r < r0 + 8; ++r) addr.push_back((long long)(l(r, c)) * (long long)sizeof(Elem));
      INFO("rows " << r0 << "..+7, column " << c);
      REQUIRE(tile::smem_wavefronts(addr, 16).conflicts() == 0);
    }
  // cp.async: consecutive threads write consecutive chunks in row-major chunk order.
  int const chunks = Rows * Cols / E;
  for (int first = 0; first < chunks; first += 32) {
    std::vector<long long> addr;
    for (int t = 0; t < 32 && first + t < chunks; ++t) {
      int const chunk = first + t, r = chunk / (Cols / E), c = (chunk % (Cols / E)) * E;
      addr.push_back((long long)(l(r, c)) * (long long)sizeof(Elem));
    }
    REQUIRE(tile::smem_wavefronts(addr, 16).conflicts() == 0);
  }
}

}  // namespace

TEST_CASE("swizzled tiles are conflict-free for ldmatrix and cp.async", "[tile][smem]") {
  check_tile<bfloat16_t, 128, 32>();  // K-major A/B tile, BK = 32: Swizzle<2,3,3>
  check_tile<bfloat16_t, 128, 64>();  // BK = 64: Swizzle<3,3,3>
  check_tile<half_t, 32, 128>();      // M-major tile (column-major A), BM = 128: Swizzle<3,3,4>
  check_tile<half_t, 32, 256>();
  check_tile<float, 64, 32>();      // tf32, BK = 32 floats: 128-byte rows
  check_tile<std::int8_t, 128, 64>();
  STATIC_REQUIRE(std::is_same_v<tile::SwizzledTile<bfloat16_t, 128, 32>::swizzle_type, Swizzle<2, 3, 3>>);
  STATIC_REQUIRE(std::is_same_v<tile::SwizzledTile<bfloat16_t, 128, 64>::swizzle_type, Swizzle<3, 3, 3>>);
  STATIC_REQUIRE(std::is_same_v<tile::SwizzledTile<half_t, 32, 128>::swizzle_type, Swizzle<3, 3, 4>>);
}

TEST_CASE("without the swizzle, ldmatrix on 64-byte rows conflicts", "[tile][smem]") {
  // The model must be able to fail: 8 rows of 64 bytes at one chunk column hit 2 bank groups.
  std::vector<long long> addr;
  for (int r = 0; r < 8; ++r) addr.push_back(64LL * r);
  CHECK(tile::smem_wavefronts(addr, 16).conflicts() == 3);
}
