// tuning/attention_space.hpp and attention/config_check.hpp on the host: the three sizes of the
// attention space (reduced 6, default 70, wide 804 candidates), each part of the next, no candidate
// twice; the Hopper kernel in bf16, f16 and e4m3 and the sm80 kernel in bf16 and f16; names unique
// and found again; dropped candidates carry the message of the check they fail; the spec as C++.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "tessera/tuning/attention_space.hpp"

using namespace tessera;
using tuning::AttentionSpaceSize;

namespace {
constexpr auto kReduced = tuning::attention_space(AttentionSpaceSize::kReduced);
constexpr auto kDefault = tuning::attention_space(AttentionSpaceSize::kDefault);
constexpr auto kWide = tuning::attention_space(AttentionSpaceSize::kWide);

template <int Cap>
bool holds(tuning::AttentionCandidateList<Cap> const& list, tuning::AttentionSpec const& s) {
  return list.find_if([&](tuning::AttentionCandidate const& c) { return c.spec == s; }) != nullptr;
}

// The valid candidates of a kernel (arch_cc) and element type.
int count(auto const& space, int cc, gemm::Dtype t) {
  int n = 0;
  for (int i = 0; i < space.size; ++i) {
    attention::ConfigSpec const& s = space.items[i].spec.config;
    n += space.items[i].valid() && s.arch_cc == cc && s.element == t ? 1 : 0;
  }
  return n;
}
}  // namespace

TEST_CASE("the attention space: three sizes, each part of the next", "[tuning][attention]") {
  STATIC_REQUIRE(kWide.size < tuning::kAttentionSpaceCapacity);  // nothing was cut off
  CHECK((kReduced.size == 6 && kReduced.valid_count() == 6));   // CI's: unchanged by fp8 and the sm80 kernel
  CHECK((kDefault.size == 70 && kDefault.valid_count() == 70));
  CHECK((kWide.size == 804 && kWide.valid_count() == 500));
  for (int i = 0; i < kReduced.size; ++i) CHECK(holds(kDefault, kReduced.items[i].spec));
  for (int i = 0; i < kDefault.size; ++i) CHECK(kWide.items[i].spec == kDefault.items[i].spec);  // the wide space starts with the default one
  int twice = 0;
  for (int i = 0; i < kWide.size; ++i)
    for (int j = 0; j < i; ++j) twice += kWide.items[i].spec == kWide.items[j].spec ? 1 : 0;
  CHECK(twice == 0);
  // The reduced space: the Hopper kernel in bf16 only. The default: the Hopper kernel in bf16 and
  // f16 (24 each), in e4m3 (6), the sm80 kernel in bf16 and f16 (8 each). The wide: more of each.
  CHECK(count(kReduced, 90, gemm::Dtype::kBf16) == 6);
  CHECK((count(kDefault, 90, gemm::Dtype::kBf16) == 24 && count(kDefault, 90, gemm::Dtype::kF16) == 24));
  CHECK(count(kDefault, 90, gemm::Dtype::kE4m3) == 6);
  CHECK((count(kDefault, 80, gemm::Dtype::kBf16) == 8 && count(kDefault, 80, gemm::Dtype::kF16) == 8));
  CHECK(count(kWide, 90, gemm::Dtype::kE4m3) == 24);
  CHECK((count(kWide, 80, gemm::Dtype::kBf16) == 60 && count(kWide, 80, gemm::Dtype::kF16) == 60));
  CHECK(count(kWide, 80, gemm::Dtype::kE4m3) == 0);  // fp8 is the Hopper kernel's
}

TEST_CASE("attention kernel names: unique, found again, the kernel's scheme", "[tuning][attention]") {
  std::set<std::string> names;
  for (int i = 0; i < kWide.size; ++i) {
    std::string const n = tuning::name(kWide.items[i].spec);
    INFO(n);
    CHECK(names.insert(n).second);
    tuning::AttentionCandidate const* found = tuning::find_attention_candidate(n);
    REQUIRE(found != nullptr);
    CHECK(found->spec == kWide.items[i].spec);
  }
  CHECK(tuning::name(kReduced.items[0].spec) == "sm90_bf16_hd128_128x128_2wg_s2_none");
  CHECK(tuning::find_attention_candidate("sm90_e4m3_hd128_128x128_2wg_s2_causal") != nullptr);
  CHECK(tuning::find_attention_candidate("sm80_bf16_hd128_64x64_4w_s2_none") != nullptr);
  CHECK(tuning::find_attention_candidate("sm80_f16_hd256_64x32_4w_s2_causal") != nullptr);
  CHECK(tuning::find_attention_candidate("sm90_e4m3_hd64_128x128_2wg_s2_none") == nullptr);  // Dv 64: not fp8's
  CHECK(tuning::find_attention_candidate("sm80_e4m3_hd128_64x64_4w_s2_none") == nullptr);
}

TEST_CASE("dropped attention candidates carry the message of the check they fail", "[tuning][attention]") {
  int smem = 0, smem80 = 0, registers = 0;
  for (int i = 0; i < kWide.size; ++i) {
    tuning::AttentionCandidate const& c = kWide.items[i];
    CHECK(c.error == attention::check(c.spec.config));
    if (c.valid()) continue;
    std::string const why = attention::config_error_message(c.error);
    INFO(tuning::name(c.spec) << ": " << why);
    if (c.error == attention::ConfigError::kSharedMemory) {
      ++smem;
      CHECK(c.spec.config.smem_bytes() > 227 * 1024);
      CHECK(why.rfind("attention::Config: Q and the K and V rings pass the 227 KB", 0) == 0);
    } else if (c.error == attention::ConfigError::kSm80SharedMemory) {
      ++smem80;
      CHECK((c.spec.config.arch_cc == 80 && c.spec.config.smem_bytes() > 163 * 1024));
      CHECK(why.rfind("attention::Config: Q and the K and V ring pass the 163 KB", 0) == 0);
    } else {
      ++registers;
      CHECK(c.error == attention::ConfigError::kThreeConsumerRegisters);
    }
  }
  CHECK((smem == 184 && smem80 == 56 && registers == 64));
}

TEST_CASE("attention specs as C++: the sm80 kernel's warps, fp8's element", "[tuning][attention]") {
  tuning::AttentionCandidate const* w = tuning::find_attention_candidate("sm80_bf16_hd128_64x64_4w_s2_none");
  tuning::AttentionCandidate const* f = tuning::find_attention_candidate("sm90_e4m3_hd128_128x128_2wg_s2_causal");
  REQUIRE((w != nullptr && f != nullptr));
  CHECK(tuning::cpp_initializer(w->spec.config) ==
        "{.arch_cc = 80, .element = tessera::gemm::Dtype::kBf16, .head_dim = 128, .head_dim_v = 128, .bq = 64, .bkv = 64, .consumers = 0, "
        ".turns = false, .warps = 4, .stages = 2}");
  CHECK(tuning::cpp_initializer(f->spec.config) ==
        "{.arch_cc = 90, .element = tessera::gemm::Dtype::kE4m3, .head_dim = 128, .head_dim_v = 128, .bq = 128, .bkv = 128, .consumers = 2, "
        ".turns = false, .stages = 2}");
  CHECK((w->spec.config.threads() == 128 && w->spec.config.smem_bytes() == 64 * 128 * 2 + 2 * 2 * 64 * 128 * 2));
  CHECK((f->spec.config.threads() == 384 && f->spec.config.smem_bytes() == 128 * 128 + 2 * (128 * 128 + 2 * 128 * 128) + 1024));
  // The initializer is the spec again.
  constexpr attention::ConfigSpec again{.arch_cc = 80, .element = gemm::Dtype::kBf16, .head_dim = 128, .head_dim_v = 128, .bq = 64,
                                        .bkv = 64, .consumers = 0, .turns = false, .warps = 4, .stages = 2};
  CHECK(again == w->spec.config);
}
