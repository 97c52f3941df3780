// attention::block_range and block_kind against brute force: for random lengths, tiles and
// chains, every key a query of the tile sees lies in a visited block, the blocks before and after
// the range are masked for every query of the tile, kSkip blocks are masked throughout, kFull
// blocks nowhere (and within the sequence), and an empty tile or key range visits nothing.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "tessera/attention/block_range.hpp"
#include "tessera/attention/masks.hpp"
#include "tessera/attention/score_chain.hpp"

using namespace tessera;
using namespace tessera::attention;

namespace {

template <class Chain>
void check_ranges(Chain const& chain, int q_len, int k_len, int bq, int bkv) {
  for (int q0 = 0; q0 < q_len; q0 += bq) {
    Block const tile{0, 0, q0, std::min(q0 + bq, q_len), 0, k_len, q_len, k_len};
    BlockRange const r = block_range(chain, tile, bkv);
    int const blocks = (k_len + bkv - 1) / bkv;
    INFO("q_len " << q_len << " k_len " << k_len << " tile [" << tile.q0 << ", " << tile.q1 << ") blocks [" << r.first << ", " << r.last
                  << ") of " << blocks << " (bkv " << bkv << ")");
    CHECK(r.first >= 0);
    CHECK(r.last <= blocks);
    for (int n = 0; n < blocks; ++n) {
      int visible = 0, cells = 0;
      for (int q = tile.q0; q < tile.q1; ++q)
        for (int k = n * bkv; k < std::min((n + 1) * bkv, k_len); ++k, ++cells)
          visible += !std::isinf(chain.score(0.5f, Coord{0, 0, q, k, q_len, k_len}));
      bool const in = n >= r.first && n < r.last;
      if (!in) CHECK(visible == 0);
      if (!in) continue;
      BlockKind const kind = block_kind(chain, tile, n, bkv);
      if (kind == BlockKind::kSkip) CHECK(visible == 0);
      if (kind == BlockKind::kFull) CHECK((visible == cells && (n + 1) * bkv <= k_len));
    }
  }
}

}  // namespace

TEST_CASE("attention block ranges: the visited blocks hold every visible key", "[attention][block_range]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    int const q_len = 1 + int(rng() % 300), k_len = 1 + int(rng() % 300);
    int const bq = 16 << (rng() % 3), bkv = 16 << (rng() % 3);
    int const left = int(rng() % 80) - 10, right = int(rng() % 80) - 10;
    check_ranges(NoMask{}, q_len, k_len, bq, bkv);
    check_ranges(ScoreChain<Causal<TopLeft>>{}, q_len, k_len, bq, bkv);
    check_ranges(ScoreChain<Causal<BottomRight>>{}, q_len, k_len, bq, bkv);
    check_ranges(ScoreChain<SlidingWindow<BottomRight>>{{left, right}}, q_len, k_len, bq, bkv);
    check_ranges(ScoreChain<Softcap, SlidingWindow<TopLeft>>{{10.0f}, {left, right}}, q_len, k_len, bq, bkv);
  }
}

TEST_CASE("attention block ranges: causal tiles visit the blocks up to their diagonal", "[attention][block_range]") {
  ScoreChain<Causal<TopLeft>> const causal;
  // 512 x 512, 128-row tiles of 128-key blocks: tile m visits blocks 0 .. m, its last partial.
  for (int m = 0; m < 4; ++m) {
    Block const tile{0, 0, 128 * m, 128 * (m + 1), 0, 512, 512, 512};
    BlockRange const r = block_range(causal, tile, 128);
    CHECK((r.first == 0 && r.last == m + 1));
    for (int n = 0; n < m; ++n) CHECK(block_kind(causal, tile, n, 128) == BlockKind::kFull);
    CHECK(block_kind(causal, tile, m, 128) == BlockKind::kPartial);
  }
  // Bottom-right with q_len = 100 < k_len = 1000: the queries see keys up to 900 + q.
  BlockRange const br = block_range(ScoreChain<Causal<BottomRight>>{}, Block{0, 0, 0, 100, 0, 1000, 100, 1000}, 128);
  CHECK((br.first == 0 && br.last == 8));  // keys < 1000
  // Top-left with q_len = 1000 > k_len = 100: queries 0..63 see keys 0..63 only.
  CHECK(block_range(causal, Block{0, 0, 0, 64, 0, 100, 1000, 100}, 64).last == 1);
  // Empty: no queries, no keys, or a window that sees nothing.
  CHECK(block_range(NoMask{}, Block{0, 0, 5, 5, 0, 100, 10, 100}, 64).size() == 0);
  CHECK(block_range(NoMask{}, Block{0, 0, 0, 5, 0, 0, 10, 0}, 64).size() == 0);
  // A last block that runs past the keys is partial even unmasked.
  CHECK(block_kind(NoMask{}, Block{0, 0, 0, 64, 0, 100, 64, 100}, 1, 64) == BlockKind::kPartial);
  CHECK(block_kind(NoMask{}, Block{0, 0, 0, 64, 0, 100, 64, 100}, 0, 64) == BlockKind::kFull);
}
