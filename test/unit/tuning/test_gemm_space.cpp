// tuning/gemm_space.hpp on the host: the default space holds at least 30 valid sm80 and 50 valid
// sm90 configurations over the types the issue names; every valid spec maps to a gemm::Config
// that is valid and derives the same spec back; every dropped one carries its reason; names are
// unique; the reduced (CI) space is a part of the default one.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <utility>

#include "tessera/tuning/gemm_space.hpp"

using namespace tessera;
using tuning::SpaceSize;

namespace {
constexpr auto kDefault = tuning::gemm_space(SpaceSize::kDefault);
constexpr auto kReduced = tuning::gemm_space(SpaceSize::kReduced);

// ConfigOf<spec> for every valid candidate: a valid Config whose own spec is the same.
template <std::size_t I>
constexpr tuning::Candidate kCandidate = kDefault.items[I];

template <std::size_t I>
constexpr bool round_trips() {
  if constexpr (!kCandidate<I>.valid()) {
    return true;
  } else {
    constexpr gemm::ConfigSpec spec = kCandidate<I>.spec;
    using Cfg = tuning::ConfigOf<spec>;
    return Cfg::valid && Cfg::spec == spec;
  }
}

template <std::size_t... I>
constexpr bool configs_round_trip(std::index_sequence<I...>) {
  return (round_trips<I>() && ...);
}

int count(auto const& space, int cc, gemm::Dtype a, bool valid) {
  int n = 0;
  for (int i = 0; i < space.size; ++i)
    n += space.items[i].spec.arch_cc == cc && space.items[i].spec.a == a && space.items[i].valid() == valid ? 1 : 0;
  return n;
}
}  // namespace

TEST_CASE("the GEMM config space: sizes, types, validity with reasons", "[tuning][gemm]") {
  STATIC_REQUIRE(kDefault.size < tuning::kSpaceCapacity);  // nothing was cut off
  int sm80 = 0, sm90 = 0, amd = 0;
  for (int i = 0; i < kDefault.size; ++i) {
    if (!kDefault.items[i].valid()) continue;
    gemm::ConfigSpec const& s = kDefault.items[i].spec;
    (s.amd() ? amd : s.arch_cc == 80 ? sm80 : sm90) += 1;
  }
  INFO("valid: " << sm80 << " sm80, " << sm90 << " sm90, " << amd << " AMD of " << kDefault.size);
  CHECK(sm80 >= 30);
  CHECK(sm90 >= 50);
  CHECK(amd >= 100);
  for (int gfx : {0x90a, 0x940})
    for (gemm::Dtype t : {gemm::Dtype::kBf16, gemm::Dtype::kF16, gemm::Dtype::kF32, gemm::Dtype::kInt8}) {
      int n = 0;
      for (int i = 0; i < kDefault.size; ++i)
        n += kDefault.items[i].valid() && kDefault.items[i].spec.gfx == gfx && kDefault.items[i].spec.a == t;
      CHECK(n > 0);
    }
  for (gemm::Dtype t : {gemm::Dtype::kBf16, gemm::Dtype::kF16, gemm::Dtype::kF32, gemm::Dtype::kInt8})
    CHECK(count(kDefault, 80, t, true) > 0);
  for (gemm::Dtype t : {gemm::Dtype::kBf16, gemm::Dtype::kF16, gemm::Dtype::kE4m3}) CHECK(count(kDefault, 90, t, true) > 0);
  // Some candidates are dropped (too much shared memory, a ping-pong tile too large, MN-major
  // tiles not in 64-element blocks), each with the message gemm::Config would print.
  int dropped = 0;
  for (int i = 0; i < kDefault.size; ++i) {
    tuning::Candidate const& c = kDefault.items[i];
    if (c.valid()) continue;
    ++dropped;
    std::string const why = gemm::config_error_message(c.error);
    INFO(tuning::name(c.spec) << ": " << why);
    CHECK(why.rfind("gemm::Config: ", 0) == 0);
  }
  CHECK(dropped > 0);
  CHECK(count(kDefault, 90, gemm::Dtype::kBf16, false) > 0);
  // AMD: the 256 x 256 tile with 128-byte k-tile rows needs 128 KB of LDS.
  tuning::Candidate const* big = tuning::find_candidate("gfx90a_f16_tn_256x256x64_4x4w_s2");
  REQUIRE(big != nullptr);
  CHECK(big->error == gemm::ConfigError::kLds);
  tuning::Candidate const* fp8 = tuning::find_candidate("gfx940_e4m3fnuz_to_f16_tn_128x128x64_2x2w_s2");
  REQUIRE(fp8 != nullptr);
  CHECK(fp8->valid());
}

TEST_CASE("every valid spec is a valid gemm::Config with the same spec", "[tuning][gemm]") {
  STATIC_REQUIRE(configs_round_trip(std::make_index_sequence<std::size_t(kDefault.size)>{}));
}

TEST_CASE("config names are unique and the reduced space is part of the default one", "[tuning][gemm]") {
  std::set<std::string> names;
  for (int i = 0; i < kDefault.size; ++i) {
    std::string const n = tuning::name(kDefault.items[i].spec);
    INFO(n);
    CHECK(names.insert(n).second);
  }
  CHECK(tuning::name(kDefault.items[0].spec) == "sm80_bf16_tn_128x256x32_2x4w_s3");
  CHECK(kReduced.size < kDefault.size);
  CHECK(kReduced.valid_count() > 0);
  for (int i = 0; i < kReduced.size; ++i) CHECK(names.count(tuning::name(kReduced.items[i].spec)) == 1);
}
