// attention::TileOrder: every tile is taken once by one block of the grid, in both orders and for
// grids larger and smaller than the problem; longest first takes each head's tiles from the last
// query block, and balances causal work (blocks of keys per tile: q_block + 1) within 4% of the
// mean on the bench's shapes, where the natural order does not.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

#include "tessera/attention/masks.hpp"
#include "tessera/attention/score_chain.hpp"
#include "tessera/attention/tile_order.hpp"

using namespace tessera::attention;

namespace {

// Each block's tiles; fails unless every tile is taken exactly once.
std::vector<std::vector<int>> walk(TileOrder const& order, int grid) {
  std::vector<std::vector<int>> taken(grid);
  std::vector<int> seen(order.tiles(), 0);
  for (int block = 0; block < grid; ++block)
    for (int j = 0, w; (w = order.at(block, grid, j)) >= 0; ++j) {
      REQUIRE(w < order.tiles());
      ++seen[w];
      taken[block].push_back(w);
    }
  for (int w = 0; w < order.tiles(); ++w) CHECK(seen[w] == 1);
  return taken;
}

// The busiest block's causal work over the mean's.
double imbalance(TileOrder const& order, int grid) {
  std::vector<long> work(grid, 0);
  auto const taken = walk(order, grid);
  for (int block = 0; block < grid; ++block)
    for (int w : taken[block]) work[block] += order.coord(w, grid).q_block + 1;
  double const mean = double(std::accumulate(work.begin(), work.end(), 0L)) / grid;
  return double(*std::max_element(work.begin(), work.end())) / mean;
}

}  // namespace

TEST_CASE("attention TileOrder: every tile once, coordinates in range", "[attention]") {
  for (bool longest : {false, true})
    for (int grid : {1, 7, 132, 1000})
      for (auto [qb, h, b] : {std::tuple{1, 1, 1}, {3, 5, 2}, {128, 16, 1}, {8, 32, 16}}) {
        TileOrder const order{qb, h, b, longest};
        INFO("longest " << longest << " grid " << grid << " tiles " << qb << "x" << h << "x" << b);
        walk(order, grid);
        std::vector<int> seen(order.tiles(), 0);
        for (int w = 0; w < order.tiles(); ++w) {
          TileCoord const c = order.coord(w, grid);
          REQUIRE(c.batch >= 0);
          REQUIRE(c.batch < b);
          REQUIRE(c.head >= 0);
          REQUIRE(c.head < h);
          REQUIRE(c.q_block >= 0);
          REQUIRE(c.q_block < qb);
          ++seen[(c.batch * h + c.head) * qb + c.q_block];
        }
        CHECK(std::count(seen.begin(), seen.end(), 1) == order.tiles());
      }
}

TEST_CASE("attention TileOrder: longest first takes a head's last query blocks first and balances causal work", "[attention]") {
  for (int grid : {132, 16}) {  // query blocks slowest, then fastest
    TileOrder const order{64, 16, 2, true};
    std::vector<int> last(32, order.q_blocks);
    for (int w = 0; w < order.tiles(); ++w) {  // each head's query blocks in decreasing order
      TileCoord const c = order.coord(w, grid);
      CHECK(c.q_block < last[c.batch * 16 + c.head]);
      last[c.batch * 16 + c.head] = c.q_block;
    }
    CHECK(order.coord(0, grid).q_block == 63);
  }
  // The bench's shapes: 16k tokens, 2048 / head dim heads, tiles of 128 queries, 132 blocks.
  for (int dim : {64, 128, 256})
    for (int seqlen = 512; seqlen <= 16384; seqlen *= 2) {
      int const q_blocks = seqlen / 128, batch = 16384 / seqlen;
      INFO("head dim " << dim << " seqlen " << seqlen);
      CHECK(imbalance(TileOrder{q_blocks, 2048 / dim, batch, true}, 132) < 1.04);
    }
  CHECK(imbalance(TileOrder{128, 16, 1, false}, 132) > 1.5);  // the natural order at 16k
}

TEST_CASE("attention ScoreChain::limits_keys", "[attention]") {
  STATIC_REQUIRE(ScoreChain<Causal<BottomRight>>::limits_keys);
  STATIC_REQUIRE(ScoreChain<Softcap, SlidingWindow<TopLeft>>::limits_keys);
  STATIC_REQUIRE_FALSE(ScoreChain<Softcap>::limits_keys);
  STATIC_REQUIRE_FALSE(NoMask::limits_keys);
}

// Variable lengths: the cursor's tiles against a brute-force numbering (sequence by sequence,
// heads, query blocks; from the last block where longest first), empty sequences included, for
// grids smaller and larger than the tiles; each block's tile numbers grow.
TEST_CASE("attention TileOrder: variable lengths against a brute-force numbering", "[attention]") {
  std::vector<int> const lengths{300, 0, 1, 129, 1023, 0, 7, 128, 2000};
  std::vector<int> cu{0};
  for (int n : lengths) cu.push_back(cu.back() + n);
  int const bq = 128, heads = 3, batch = int(lengths.size());
  int const longest = *std::max_element(lengths.begin(), lengths.end());
  for (bool longest_first : {false, true}) {
    std::vector<TileCoord> all;  // the numbering
    for (int b = 0; b < batch; ++b) {
      int const blocks = (lengths[std::size_t(b)] + bq - 1) / bq;
      for (int h = 0; h < heads; ++h)
        for (int m = 0; m < blocks; ++m) all.push_back({b, h, longest_first ? blocks - 1 - m : m});
    }
    TileOrder const order{(longest + bq - 1) / bq, heads, batch, longest_first, cu.data(), bq};
    for (int grid : {1, 5, 132, 1000}) {
      INFO("longest first " << longest_first << " grid " << grid);
      std::vector<int> seen(all.size(), 0);
      for (int block = 0; block < grid; ++block) {
        TileOrder::Cursor at;
        int last = -1;
        for (int j = 0; order.next(block, grid, j, at); ++j) {
          int const w = order.at(block, grid, j);
          REQUIRE(w > last);
          last = w;
          REQUIRE(w < int(all.size()));
          CHECK(at.tile.batch == all[std::size_t(w)].batch);
          CHECK(at.tile.head == all[std::size_t(w)].head);
          CHECK(at.tile.q_block == all[std::size_t(w)].q_block);
          ++seen[std::size_t(w)];
        }
      }
      CHECK(std::count(seen.begin(), seen.end(), 1) == int(all.size()));
    }
  }
}
