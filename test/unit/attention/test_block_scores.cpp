// The score chain on a wgmma fragment (attention/block_scores.hpp): the Hopper kernel's fast paths
// (masks by the ends of each row's run of keys; modifiers beside exact masks; k_len compared on the
// last block only) against the chain's definition, score by score: for every thread of a consumer
// warpgroup, every block a tile computes, a score is unchanged where the block needs no chain,
// masked past k_len, and chain.score(x) (natural units where the chain modifies) elsewhere -- for
// causal masks of both alignments, windows, modifiers alone and beside masks, a user mask without
// exact keys, and no chain; sq < sk, = and >, lengths not multiples of the blocks.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "tessera/attention/block_scores.hpp"
#include "tessera/attention/masks.hpp"
#include "tessera/attention/score_chain.hpp"

using namespace tessera;
using namespace tessera::attention;

namespace {

// Keys whose index is a multiple of 3 are masked (no block() or keys(): the per-score path).
struct EveryThirdKey {
  static constexpr bool modifies = false;
  float score(float x, Coord const& c) const { return c.k % 3 == 0 ? -__builtin_inff() : x; }
};

bool same(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

template <int N, class Chain>
void check_chain(Chain const& chain, int q_len, int k_len, std::mt19937& rng) {
  using Acc = tile::WgmmaAccum<float, N, 1>;
  constexpr bool natural = Chain::modifies;
  float const scale = 0.0883883f;
  std::normal_distribution<float> normal(0.0f, 4.0f);
  int checked = 0;
  for (int q0 = 0; q0 < q_len; q0 += 64) {
    Block const rows{1, 3, q0, q0 + 64 < q_len ? q0 + 64 : q_len, 0, k_len, q_len, k_len};
    for (int n = 0; n * N < k_len; ++n) {
      BlockKind const kind = block_kind(chain, rows, n, N);
      if (kind == BlockKind::kSkip) continue;  // (never computed)
      for (int thread = 0; thread < 128; ++thread) {
        Acc s;
        for (int v = 0; v < Acc::values; ++v) s.regs[0][v] = normal(rng);
        Acc const before = s;
        apply_chain(chain, scale, rows, n, N, s, thread);
        for (int v = 0; v < Acc::values; ++v) {
          int const q = rows.q0 + Acc::row(thread, v), k = n * N + Acc::col(thread, v);
          if (q >= q_len) continue;  // (rows past the sequence are never stored)
          float const x = before.regs[0][v];
          float expected = x;
          if (natural || kind != BlockKind::kFull)
            expected = k >= k_len ? -__builtin_inff() : float(chain.score(natural ? x * scale : x, Coord{1, 3, q, k, q_len, k_len}));
          INFO("q_len " << q_len << " k_len " << k_len << " q " << q << " k " << k << " thread " << thread << " kind " << int(kind));
          REQUIRE(same(s.regs[0][v], expected));
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 0);
}

template <int N, class Chain>
void check_lengths(Chain const& chain, std::mt19937& rng) {
  for (auto [q_len, k_len] : {std::pair{1, 1}, {77, 300}, {300, 77}, {257, 257}, {129, 1000}, {640, 130}}) check_chain<N>(chain, q_len, k_len, rng);
}

}  // namespace

TEST_CASE("apply_chain on a wgmma fragment: the fast paths score as the chain does", "[attention]") {
  std::mt19937 rng(7);
  float const slopes[4] = {0.5f, 0.25f, 0.125f, 0.0625f};
  check_lengths<128>(ScoreChain<Causal<BottomRight>>{}, rng);  // exact key runs
  check_lengths<176>(ScoreChain<Causal<TopLeft>>{}, rng);
  check_lengths<128>(ScoreChain<SlidingWindow<BottomRight>>{{100, 30}}, rng);
  check_lengths<64>(ScoreChain<SlidingWindow<TopLeft>>{{64, 0}}, rng);
  check_lengths<128>(ScoreChain<Softcap, Causal<BottomRight>>{{30.0f}, {}}, rng);  // a modifier beside exact masks
  check_lengths<128>(ScoreChain<Alibi<TopLeft>>{{slopes}}, rng);                   // a modifier alone
  check_lengths<128>(ScoreChain<EveryThirdKey>{}, rng);                            // the per-score path
  check_lengths<176>(NoMask{}, rng);                                               // k_len on the last block
}
