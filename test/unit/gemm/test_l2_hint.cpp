// gemm::resolve_l2_hint: kAuto becomes evict-first exactly for an operand read once (its partner
// dimension one tile, not shared across a batch); explicit hints pass through unchanged.
#include <catch2/catch.hpp>

#include "tessera/gemm/l2_hint.hpp"

using tessera::gemm::L2Hint;
using tessera::gemm::resolve_l2_hint;

TEST_CASE("kAuto streams an operand read once and leaves the others unhinted", "[gemm][l2_hint]") {
  // A decode GEMM's weights: one tile over M, one batch entry.
  CHECK(resolve_l2_hint(L2Hint::kAuto, 1, 1, 0) == L2Hint::kEvictFirst);
  // Its activations, read by every one of 64 tiles over N.
  CHECK(resolve_l2_hint(L2Hint::kAuto, 64, 1, 0) == L2Hint::kNormal);
  CHECK(resolve_l2_hint(L2Hint::kAuto, 2, 1, 0) == L2Hint::kNormal);
  // A batch with an operand per entry reads each once; one operand for the whole batch is reused.
  CHECK(resolve_l2_hint(L2Hint::kAuto, 1, 4, 4096) == L2Hint::kEvictFirst);
  CHECK(resolve_l2_hint(L2Hint::kAuto, 1, 4, 0) == L2Hint::kNormal);
  CHECK(resolve_l2_hint(L2Hint::kAuto, 3, 4, 4096) == L2Hint::kNormal);
}

TEST_CASE("explicit L2 hints are kept whatever the shape", "[gemm][l2_hint]") {
  for (L2Hint h : {L2Hint::kNormal, L2Hint::kEvictFirst, L2Hint::kEvictLast})
    for (std::int64_t tiles : {1, 2, 100}) {
      CHECK(resolve_l2_hint(h, tiles, 1, 0) == h);
      CHECK(resolve_l2_hint(h, tiles, 3, 0) == h);
    }
  static_assert(resolve_l2_hint(L2Hint::kAuto, 1, 1, 0) == L2Hint::kEvictFirst);
}
