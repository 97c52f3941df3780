// attention::Problem on the host: the layouts' strides, the checks and their messages, and the
// host reference's contract (softmax over the full row; GQA's head mapping; fully masked and
// empty rows give O = 0 and LSE = -infinity; variable lengths and LSE's layouts).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "attention_reference.hpp"
#include "tessera/attention/masks.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/attention/score_chain.hpp"

using namespace tessera;
using namespace tessera::attention;

TEST_CASE("attention problems: layouts by strides", "[attention]") {
  Problem const bshd = Problem::dense(2, 8, 2, 100, 300, 64, Layout::kBSHD);
  CHECK(bshd.q.offset(1, 3, 5) == ((1 * 100 + 3) * 8 + 5) * 64);
  CHECK(bshd.k.offset(1, 3, 1) == ((1 * 300 + 3) * 2 + 1) * 64);
  Problem const bhsd = Problem::dense(2, 8, 2, 100, 300, 64, Layout::kBHSD, 128);
  CHECK(bhsd.q.offset(1, 3, 5) == ((1 * 8 + 5) * 100 + 3) * 64);
  CHECK(bhsd.v.offset(1, 3, 1) == ((1 * 2 + 1) * 300 + 3) * 128);
  CHECK(bhsd.o.offset(1, 3, 5) == ((1 * 8 + 5) * 100 + 3) * 128);
  CHECK(bshd.group() == 4);
  CHECK(bshd.softmax_scale() == Approx(0.125));
  CHECK(check(bshd).ok());
  CHECK(check(bhsd).ok());
}

TEST_CASE("attention problems: refusals say what to fix", "[attention]") {
  Problem p = Problem::dense(1, 12, 5, 64, 64, 128, Layout::kBSHD);
  CHECK_THAT(check(p).message(), Catch::Contains("heads = 12 is not a multiple of heads_kv = 5"));
  p = Problem::dense(1, 8, 8, 64, 64, 100, Layout::kBSHD);
  CHECK(check(p).code() == StatusCode::kNotSupported);
  CHECK_THAT(check(p).message(), Catch::Contains("head_dim = 100 is not a multiple of 8") && Catch::Contains("pad the head dimension up to 104"));
  p = Problem::dense(1, 8, 8, 64, 64, 264, Layout::kBSHD);
  CHECK_THAT(check(p).message(), Catch::Contains("from 8 to 256"));
  p = Problem::dense(1, 8, 8, 64, 64, 128, Layout::kBSHD, 36);
  CHECK_THAT(check(p).message(), Catch::Contains("head_dim_v = 36"));
  p = Problem::dense(1, 8, 8, -1, 64, 128, Layout::kBSHD);
  CHECK_THAT(check(p).message(), Catch::Contains("cannot be negative"));
  p = Problem::dense(1, 8, 8, 64, 64, 128, Layout::kBSHD);
  int cu[2] = {0, 64};
  p.cu_seqlens_q = cu;
  CHECK_THAT(check(p).message(), Catch::Contains("cu_seqlens_q and cu_seqlens_k go together"));
  p = Problem::variable_lengths(1, 8, 8, cu, cu, 64, 64, 32, 64, 128);  // fewer tokens than the longest sequence
  CHECK_THAT(check(p).message(), Catch::Contains("total_q = 32 and total_k = 64"));
  p = Problem::variable_lengths(1, 8, 8, cu, cu, 64, 64, 64, 64, 128);
  CHECK(check(p).ok());
  p = Problem::dense(1, 8, 8, 64, 64, 128, Layout::kBSHD);
  p.scale = std::numeric_limits<float>::quiet_NaN();
  CHECK_THAT(check(p).message(), Catch::Contains("must be finite and positive"));
  CHECK(check(Problem::dense(0, 8, 8, 64, 64, 128, Layout::kBSHD)).code() == StatusCode::kInvalidArgument);
  CHECK(check(Problem::dense(1, 8, 8, 0, 0, 128, Layout::kBSHD)).ok());  // empty sequences are a valid problem
}

TEST_CASE("attention reference: the softmax of a small case by hand, GQA heads, masked rows", "[attention]") {
  // One query, two keys, head dim 8: scores 1 and 3 (after the scale), V rows 1 and 2 everywhere.
  Problem p = Problem::dense(1, 2, 1, 1, 2, 8, Layout::kBSHD);
  p.scale = 1.0f;
  std::vector<float> q(16, 0.0f), k(16, 0.0f), v(16, 0.0f);
  q[0] = 1.0f, q[8] = 1.0f;  // both query heads
  k[0] = 1.0f, k[8] = 3.0f;  // the one K/V head, two keys
  for (int d = 0; d < 8; ++d) v[std::size_t(d)] = 1.0f, v[std::size_t(8 + d)] = 2.0f;
  auto const l = test::attention_lengths(p);
  auto const r = test::attention_reference(p, l, q.data(), k.data(), v.data(), NoMask{}, 16);
  double const w1 = std::exp(1.0) / (std::exp(1.0) + std::exp(3.0));
  for (int h = 0; h < 2; ++h) {  // both query heads read K/V head 0
    CHECK(r.o[std::size_t(h * 8)] == Approx(w1 * 1 + (1 - w1) * 2));
    CHECK(r.lse[std::size_t(h)] == Approx(std::log(std::exp(1.0) + std::exp(3.0))));
  }
  // Causal top-left with q_len = 1: the query sees key 0 only.
  auto const c = test::attention_reference(p, l, q.data(), k.data(), v.data(), ScoreChain<Causal<TopLeft>>{}, 16);
  CHECK(c.o[0] == Approx(1.0));
  CHECK(c.lse[0] == Approx(1.0));
  // Windows: unbounded both ways masks nothing; {0, unbounded} bottom-right (aligned position 1)
  // sees key 1 only; {0, 0} top-left key 0 only.
  auto const open = test::attention_reference(p, l, q.data(), k.data(), v.data(), ScoreChain<SlidingWindow<TopLeft>>{{-1, -1}}, 16);
  auto const later = test::attention_reference(p, l, q.data(), k.data(), v.data(), ScoreChain<SlidingWindow<BottomRight>>{{0, -1}}, 16);
  auto const first = test::attention_reference(p, l, q.data(), k.data(), v.data(), ScoreChain<SlidingWindow<TopLeft>>{{0, 0}}, 16);
  CHECK(open.o[0] == Approx(w1 * 1 + (1 - w1) * 2));
  CHECK(later.o[0] == Approx(2.0));
  CHECK(first.o[0] == Approx(1.0));
  // A stage that masks every score: O = 0, LSE = -inf.
  struct Nothing {
    float score(float, Coord const&) const { return -INFINITY; }
  };
  auto const all_masked = test::attention_reference(p, l, q.data(), k.data(), v.data(), ScoreChain<Nothing>{}, 16);
  CHECK(all_masked.o[0] == 0.0);
  CHECK(std::isinf(all_masked.lse[0]));
  CHECK(all_masked.lse[0] < 0);
}

TEST_CASE("attention reference: variable lengths with empty sequences, LSE per token", "[attention]") {
  std::vector<int> const cu_q{0, 3, 3, 4}, cu_k{0, 5, 7, 7};  // lengths (3, 5), (0, 2), (1, 0)
  Problem const p = Problem::variable_lengths(3, 2, 2, cu_q.data(), cu_k.data(), 3, 5, 4, 7, 8);
  auto const l = test::attention_lengths(p, cu_q, cu_k);
  CHECK(l.total_q == 4);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  std::vector<float> q(4 * 2 * 8), k(7 * 2 * 8), v(7 * 2 * 8);
  for (auto* t : {&q, &k, &v})
    for (auto& x : *t) x = normal(rng);
  auto const r = test::attention_reference(p, l, q.data(), k.data(), v.data(), NoMask{}, q.size());
  // Token 3 (batch 2) has no keys: O = 0, LSE = -inf for both heads; batch 0's tokens are finite.
  for (int h = 0; h < 2; ++h) {
    CHECK(std::isinf(r.lse[std::size_t(p.lse_offset(2, h, 0, 3, l.total_q))]));
    CHECK(r.o[std::size_t(p.o.offset(0, 3, h))] == 0.0);
    for (int i = 0; i < 3; ++i) CHECK(std::isfinite(r.lse[std::size_t(p.lse_offset(0, h, i, i, l.total_q))]));
  }
}
