// The attention masks and score stages on the host: each stage's scores, and its block kinds and
// key ranges against brute force over every score of random blocks (a kSkip block has every score
// masked, a kFull block none; the key range holds every key a query of the block may see, and
// for the window masks exactly those), for top-left and bottom-right alignment with
// q_len < k_len, = and >.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "tessera/attention/masks.hpp"
#include "tessera/attention/score_chain.hpp"

using namespace tessera;
using namespace tessera::attention;

namespace {

bool is_masked(float x) { return std::isinf(x) && x < 0; }

// Checks `chain`'s block() and keys() on every block of `bq` x `bk` scores of sequences of q_len x
// k_len against its scores; `exact`: the key range is exactly the visible keys' span.
template <class Chain>
void check_blocks(Chain const& chain, int q_len, int k_len, int bq, int bk, bool exact) {
  for (int q0 = 0; q0 < q_len; q0 += bq)
    for (int k0 = 0; k0 < k_len; k0 += bk) {
      Block const b{0, 1, q0, std::min(q0 + bq, q_len), k0, std::min(k0 + bk, k_len), q_len, k_len};
      int masked = 0, total = 0;
      for (int q = b.q0; q < b.q1; ++q)
        for (int k = b.k0; k < b.k1; ++k, ++total) masked += is_masked(chain.score(1.0f, Coord{0, 1, q, k, q_len, k_len}));
      BlockKind const kind = chain.block(b);
      INFO("q_len " << q_len << " k_len " << k_len << " block q [" << b.q0 << ", " << b.q1 << ") k [" << b.k0 << ", " << b.k1 << ")");
      if (kind == BlockKind::kSkip) CHECK(masked == total);
      if (kind == BlockKind::kFull) CHECK(masked == 0);
      // Blocks that are all one way should say so where the stage knows (the window masks do).
      if (exact && masked == total) CHECK(kind == BlockKind::kSkip);
      if (exact && masked == 0) CHECK(kind == BlockKind::kFull);
    }
  // Key ranges of query blocks against the keys they see.
  for (int q0 = 0; q0 < q_len; q0 += bq) {
    Block const b{0, 1, q0, std::min(q0 + bq, q_len), 0, k_len, q_len, k_len};
    int lo = k_len, hi = 0;
    for (int q = b.q0; q < b.q1; ++q)
      for (int k = 0; k < k_len; ++k)
        if (!is_masked(chain.score(1.0f, Coord{0, 1, q, k, q_len, k_len}))) lo = std::min(lo, k), hi = std::max(hi, k + 1);
    KeyRange const r = chain.keys(b);
    INFO("q_len " << q_len << " k_len " << k_len << " queries [" << b.q0 << ", " << b.q1 << "): keys [" << r.lo << ", " << r.hi
                  << "), visible [" << lo << ", " << hi << ")");
    CHECK(r.lo >= 0);
    CHECK(r.hi <= k_len);
    if (lo < hi) {
      CHECK(r.lo <= lo);
      CHECK(r.hi >= hi);
      if (exact) CHECK((r.lo == lo && r.hi == hi));
    } else if (exact) {
      CHECK(r.empty());
    }
  }
}

}  // namespace

TEST_CASE("attention masks: scores", "[attention][masks]") {
  Coord const c{0, 2, 5, 7, 10, 13};  // q = 5, k = 7; bottom-right offset 3: aligned position 8
  CHECK(Causal<TopLeft>{}.score(1.5f, c) == -INFINITY);
  CHECK(Causal<BottomRight>{}.score(1.5f, c) == 1.5f);
  CHECK(SlidingWindow<BottomRight>{1, 0}.score(1.5f, c) == 1.5f);  // the window [7, 8] of aligned position 8
  CHECK(SlidingWindow<BottomRight>{0, 0}.score(1.5f, c) == -INFINITY);
  CHECK(SlidingWindow<TopLeft>{-1, 2}.score(1.5f, c) == 1.5f);          // 7 <= 5 + 2
  CHECK(SlidingWindow<TopLeft>{-1, 1}.score(1.5f, c) == -INFINITY);
  float const slopes[3] = {0.5f, 0.25f, 0.125f};
  CHECK(Alibi<BottomRight>{slopes}.score(1.0f, c) == 1.0f - 0.125f * 1.0f);  // |7 - 8|
  CHECK(Alibi<TopLeft>{slopes}.score(1.0f, c) == 1.0f - 0.125f * 2.0f);      // |7 - 5|
  CHECK(Softcap{2.0f}.score(1.0f, c) == Approx(2.0 * std::tanh(0.5)).epsilon(1e-6));
  CHECK(Softcap{2.0f}.score(-INFINITY, c) == -INFINITY);  // a masked score stays masked
  CHECK(Alibi<>{slopes}.score(-INFINITY, c) == -INFINITY);
}

TEST_CASE("attention masks: ALiBi's distances exact up to 2^22, longer sequences refused", "[attention][masks]") {
  float const slopes[2] = {0.75f, 0.001f};
  int const top = Alibi<>::kMaxLength;  // 2^22 - 1
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pos(0, top - 1);
  std::vector<std::pair<int, int>> qk{{0, 0}, {0, 1}, {1, 0}, {5, 2}, {0, top - 1}, {top - 1, 0}, {4095, 65536}, {123457, 3}};
  for (int i = 0; i < 2000; ++i) qk.emplace_back(pos(rng), pos(rng));
  for (auto [q, k] : qk) {
    for (int head : {0, 1}) {
      double const d = std::abs(double(k) - double(q));
      CHECK(Alibi<TopLeft>{slopes}.score(2.0f, Coord{0, head, q, k, top, top}) == 2.0f - slopes[head] * float(d));
      // Bottom-right: the aligned position is q + k_len - q_len, with fewer queries than keys
      // (a continuation) and with more (the first queries see no key; their distances still count).
      for (int const q_len : {top - 1000, top}) {
        int const k_len = q_len == top ? top - 1000 : top;
        if (q >= q_len || k >= k_len) continue;
        double const e = std::abs(double(k) - double(q + k_len - q_len));
        CHECK(Alibi<BottomRight>{slopes}.score(2.0f, Coord{0, head, q, k, q_len, k_len}) == 2.0f - slopes[head] * float(e));
      }
    }
  }
  using Linear = ScoreChain<Alibi<TopLeft>>;
  auto const problem = [](int sq, int sk) { return Problem::dense(1, 2, 2, sq, sk, 64, Layout::kBSHD); };
  CHECK(Linear{{slopes}}.check(problem(top, top)).ok());
  CHECK_THAT(Linear{{slopes}}.check(problem(top + 1, 16)).message(),
             Catch::Contains("attention::Alibi: seqlen_q = 4194304, seqlen_k = 16: both must be below 2^22"));
  CHECK_THAT(Linear{{slopes}}.check(problem(16, top + 1)).message(), Catch::Contains("seqlen_k = 4194304: both must be below 2^22"));
  CHECK_THAT(Linear{{slopes}}.check(problem(16, top + 1)).message(), Catch::Contains("write a stage of your own with float(k - q)"));
  // check() first, then check(Problem): a null slope pointer is named on any problem.
  CHECK_THAT(Linear{}.check(problem(16, 16)).message(), Catch::Contains("slopes is null"));
  CHECK_THAT(Linear{}.check(problem(top + 1, 16)).message(), Catch::Contains("slopes is null"));
  CHECK(Linear{{slopes}}.check().ok());  // the parameters alone
}

TEST_CASE("attention masks: block kinds and key ranges against brute force", "[attention][masks]") {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    int const q_len = 1 + int(rng() % 70), k_len = 1 + int(rng() % 70), bq = 1 + int(rng() % 16), bk = 1 + int(rng() % 16);
    int const left = int(rng() % 12) - 2, right = int(rng() % 12) - 2;  // some unbounded (negative)
    check_blocks(ScoreChain<Causal<TopLeft>>{}, q_len, k_len, bq, bk, true);
    check_blocks(ScoreChain<Causal<BottomRight>>{}, q_len, k_len, bq, bk, true);
    check_blocks(ScoreChain<SlidingWindow<TopLeft>>{{left, right}}, q_len, k_len, bq, bk, true);
    check_blocks(ScoreChain<SlidingWindow<BottomRight>>{{left, right}}, q_len, k_len, bq, bk, true);
    // Chained: the intersection; a modifier in front changes no block kind.
    check_blocks(ScoreChain<Softcap, Causal<BottomRight>, SlidingWindow<BottomRight>>{{5.0f}, {}, {left, right}}, q_len, k_len, bq,
                 bk, false);
  }
}

TEST_CASE("attention score chains: order, traits and the defaults of a stage of one's own", "[attention][masks]") {
  struct Doubling {  // a user stage with nothing but score(): may mask, modifies
    TESSERA_HD float score(float x, Coord const&) const { return 2.0f * x; }
  };
  using Chain = ScoreChain<Doubling, Softcap, Causal<>>;
  STATIC_REQUIRE(Chain::masks);
  STATIC_REQUIRE(Chain::modifies);
  STATIC_REQUIRE(!ScoreChain<Causal<>, SlidingWindow<>>::modifies);
  STATIC_REQUIRE(!ScoreChain<Softcap>::masks);
  STATIC_REQUIRE(!NoMask::masks);
  Chain const chain{{}, {3.0f}, {}};
  CHECK(chain.score(1.0f, Coord{0, 0, 4, 2, 8, 8}) == Approx(3.0 * std::tanh(2.0 / 3.0)).epsilon(1e-6));
  CHECK(chain.score(1.0f, Coord{0, 0, 2, 4, 8, 8}) == -INFINITY);
  // The user stage's default block kind is kPartial (it may mask), its key range all keys.
  Block const b{0, 0, 0, 4, 0, 4, 8, 8};
  CHECK(ScoreChain<Doubling>{}.block(b) == BlockKind::kPartial);
  CHECK(ScoreChain<Softcap>{{1.0f}}.block(b) == BlockKind::kFull);  // declares it never masks
  CHECK(NoMask{}.block(b) == BlockKind::kFull);
  CHECK(NoMask{}.block(Block{0, 0, 4, 4, 0, 4, 8, 8}) == BlockKind::kSkip);  // an empty block
  KeyRange const r = ScoreChain<Doubling, Causal<>>{}.keys(Block{0, 0, 0, 3, 0, 8, 3, 8});
  CHECK((r.lo == 0 && r.hi == 3));
}

TEST_CASE("attention score chains: parameters checked on the host, with the fix", "[attention][masks]") {
  CHECK(ScoreChain<Causal<>, Softcap>{{}, {30.0f}}.check().ok());
  CHECK_THAT(ScoreChain<Softcap>{}.check().message(), Catch::Contains("Softcap: cap = 0.000000 must be finite and positive"));
  CHECK_THAT((ScoreChain<Causal<>, Softcap>{{}, {-1.0f}}.check().message()), Catch::Contains("give Softcap{cap} with cap > 0"));
  CHECK_THAT((ScoreChain<SlidingWindow<>>{{2147483647, 0}}.check().message()), Catch::Contains("give -1 for an unbounded side"));
  CHECK(ScoreChain<SlidingWindow<>>{{-1, 0}}.check().ok());
  CHECK_THAT(ScoreChain<Alibi<>>{}.check().message(), Catch::Contains("Alibi: slopes is null"));
  struct Own {  // a stage of one's own without a check: nothing to say
    TESSERA_HD float score(float x, Coord const&) const { return x; }
  };
  CHECK(ScoreChain<Own, Softcap>{{}, {5.0f}}.check().ok());
  CHECK(NoMask{}.check().ok());
}

namespace {
struct SevenTokenDocuments {  // a mask of one's own: not declared exact
  TESSERA_HD float score(float x, Coord const& c) const { return c.q / 7 == c.k / 7 ? x : -INFINITY; }
  static constexpr bool modifies = false;
};
}  // namespace

// Chains whose keys() are exact: for every query, the keys whose score stays finite are exactly
// the run keys() of the query alone gives (the kernel masks rows by that run's ends).
TEST_CASE("attention score chains: exact key runs", "[attention][masks]") {
  auto const check_exact = [](auto const& chain, int q_len, int k_len) {
    for (int q = 0; q < q_len; ++q) {
      KeyRange const r = chain.keys(Block{0, 0, q, q + 1, 0, k_len, q_len, k_len});
      for (int k = 0; k < k_len; ++k) {
        bool const seen = std::isfinite(chain.score(1.0f, Coord{0, 0, q, k, q_len, k_len}));
        INFO("q " << q << " k " << k << " of " << q_len << " x " << k_len << ", run [" << r.lo << ", " << r.hi << ")");
        REQUIRE(seen == (k >= r.lo && k < r.hi));
      }
    }
  };
  STATIC_REQUIRE(ScoreChain<Causal<BottomRight>>::exact_keys);
  STATIC_REQUIRE(ScoreChain<SlidingWindow<TopLeft>, Causal<TopLeft>>::exact_keys);
  STATIC_REQUIRE_FALSE(ScoreChain<Softcap, Causal<TopLeft>>::exact_keys);  // changes scores
  STATIC_REQUIRE_FALSE(NoMask::exact_keys);
  STATIC_REQUIRE_FALSE(ScoreChain<SevenTokenDocuments>::exact_keys);
  for (auto [q_len, k_len] : {std::pair{1, 1}, {7, 19}, {19, 7}, {33, 33}, {5, 0}}) {
    check_exact(ScoreChain<Causal<TopLeft>>{}, q_len, k_len);
    check_exact(ScoreChain<Causal<BottomRight>>{}, q_len, k_len);
    for (auto [left, right] : {std::pair{-1, -1}, {0, 0}, {3, -1}, {-1, 2}, {4, 6}, {100, 1}})
      check_exact(ScoreChain<SlidingWindow<BottomRight>, Causal<TopLeft>>{{left, right}, {}}, q_len, k_len);
  }
}

// Chains of modifiers and exact masks: score() is modify() on each query's run of keys and
// -infinity elsewhere, whatever the stages' order.
TEST_CASE("attention score chains: modifiers beside exact masks", "[attention][masks]") {
  STATIC_REQUIRE(ScoreChain<Softcap, Causal<TopLeft>>::exact_masks);
  STATIC_REQUIRE(ScoreChain<Causal<BottomRight>, Alibi<BottomRight>, SlidingWindow<TopLeft>>::exact_masks);
  STATIC_REQUIRE_FALSE(ScoreChain<Softcap>::exact_masks);               // nothing masks
  STATIC_REQUIRE_FALSE(ScoreChain<Causal<TopLeft>>::exact_masks);       // nothing modifies (exact_keys instead)
  STATIC_REQUIRE_FALSE(ScoreChain<SevenTokenDocuments, Softcap>::exact_masks);  // a mask that is not exact
  std::vector<float> slopes{0.5f, 0.25f};
  auto const check = [&](auto const& chain, int q_len, int k_len) {
    for (int q = 0; q < q_len; ++q) {
      KeyRange const r = chain.keys(Block{0, 1, q, q + 1, 0, k_len, q_len, k_len});
      for (int k = 0; k < k_len; ++k) {
        Coord const c{0, 1, q, k, q_len, k_len};
        float const x = 0.37f * float(k - q);
        INFO("q " << q << " k " << k);
        if (k >= r.lo && k < r.hi) CHECK(chain.score(x, c) == chain.modify(x, c));
        else CHECK(chain.score(x, c) == -INFINITY);
      }
    }
  };
  for (auto [q_len, k_len] : {std::pair{7, 19}, {19, 7}, {16, 16}}) {
    check(ScoreChain<Softcap, Causal<TopLeft>>{{3.0f}, {}}, q_len, k_len);
    check(ScoreChain<Causal<BottomRight>, Alibi<BottomRight>, SlidingWindow<TopLeft>>{{}, {slopes.data()}, {4, 2}}, q_len, k_len);
  }
}
