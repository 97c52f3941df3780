// tuning/conv_space.hpp and conv/config_check.hpp on the host: the three sizes of the convolution
// space (reduced 6, default 22, wide 276 candidates), each part of the next; every direction,
// both 16-bit types and both architectures; names unique and in the GEMM's scheme with the
// direction; dropped candidates carry the message of the check they fail; conv::check's own
// refusals (orders, types, clusters, AMD); the spec as C++.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "tessera/tuning/conv_space.hpp"

using namespace tessera;
using tuning::ConvSpaceSize;

namespace {
constexpr auto kReduced = tuning::conv_space(ConvSpaceSize::kReduced);
constexpr auto kDefault = tuning::conv_space(ConvSpaceSize::kDefault);
constexpr auto kWide = tuning::conv_space(ConvSpaceSize::kWide);

template <int Cap>
bool holds(tuning::ConvCandidateList<Cap> const& list, conv::ConfigSpec const& s) {
  return list.find_if([&](tuning::ConvCandidate const& c) { return c.spec == s; }) != nullptr;
}

int count(auto const& space, int cc, conv::Direction d, gemm::Dtype t) {
  int n = 0;
  for (int i = 0; i < space.size; ++i) {
    conv::ConfigSpec const& s = space.items[i].spec;
    n += space.items[i].valid() && s.gemm.arch_cc == cc && s.direction == d && s.x() == t ? 1 : 0;
  }
  return n;
}

constexpr conv::ConfigSpec sm90(conv::Direction d, int bn, int stages) {
  conv::ConfigSpec s = conv::spec_of(90, d, gemm::Dtype::kBf16);
  s.gemm.bm = 128;
  s.gemm.bn = bn;
  s.gemm.bk = 64;
  s.gemm.consumers = 2;
  s.gemm.stages = stages;
  return s;
}
}  // namespace

TEST_CASE("the convolution space: three sizes, each part of the next", "[tuning][conv]") {
  STATIC_REQUIRE(kWide.size < tuning::kConvSpaceCapacity);  // nothing was cut off
  CHECK(kReduced.size == 6);
  CHECK(kReduced.valid_count() == 6);
  CHECK(kDefault.size == 22);
  CHECK(kDefault.valid_count() == 22);  // the bench's Configs: all valid
  CHECK(kWide.size == 276);
  CHECK(kWide.valid_count() == 222);
  for (int i = 0; i < kReduced.size; ++i) CHECK(holds(kDefault, kReduced.items[i].spec));
  for (int i = 0; i < kDefault.size; ++i) {
    CHECK(holds(kWide, kDefault.items[i].spec));
    CHECK(kWide.items[i].spec == kDefault.items[i].spec);  // the wide space starts with the default one
  }
  // Every direction on both architectures: reduced bf16 once each, default bf16 and f16.
  for (conv::Direction d : {conv::Direction::kFprop, conv::Direction::kDgrad, conv::Direction::kWgrad})
    for (int cc : {80, 90}) {
      CHECK(count(kReduced, cc, d, gemm::Dtype::kBf16) == 1);
      CHECK(count(kReduced, cc, d, gemm::Dtype::kF16) == 0);
      for (gemm::Dtype t : {gemm::Dtype::kBf16, gemm::Dtype::kF16}) {
        CHECK(count(kDefault, cc, d, t) >= 1);
        CHECK(count(kWide, cc, d, t) >= 10);
      }
    }
}

TEST_CASE("convolution config names: unique, the GEMM's scheme with the direction", "[tuning][conv]") {
  std::set<std::string> names;
  for (int i = 0; i < kWide.size; ++i) {
    std::string const n = tuning::name(kWide.items[i].spec);
    INFO(n);
    CHECK(names.insert(n).second);
    tuning::ConvCandidate const* found = tuning::find_conv_candidate(n);
    REQUIRE(found != nullptr);
    CHECK(found->spec == kWide.items[i].spec);
  }
  CHECK(tuning::name(kReduced.items[0].spec) == "sm90_bf16_fprop_128x128x64_2wg_coop_s6");
  CHECK(tuning::name(kReduced.items[1].spec) == "sm80_bf16_fprop_128x128x32_2x2w_s4");
  CHECK(tuning::name(kReduced.items[3].spec) == "sm80_bf16_dgrad_128x128x32_2x2w_s4");
  CHECK(tuning::name(kReduced.items[4].spec) == "sm90_bf16_wgrad_128x256x64_2wg_coop_s4");
  CHECK(tuning::name(kDefault.items[8].spec) == "sm90_bf16_wgrad_64x256x64_1wg_coop_s4");
  CHECK(tuning::find_conv_candidate("sm90_bf16_tn_128x128x64_2wg_coop_s6") == nullptr);  // a GEMM's name
  CHECK(tuning::find_conv_candidate("sm90_bf16_fprop_96x96x64_2wg_coop_s6") == nullptr);
}

TEST_CASE("a convolution spec's GEMM: the direction's orders and the tensors' roles", "[tuning][conv]") {
  for (int i = 0; i < kWide.size; ++i) {
    conv::ConfigSpec const& s = kWide.items[i].spec;
    CHECK(s.gemm.a_k_major == (s.direction != conv::Direction::kWgrad));
    CHECK(s.gemm.b_k_major == (s.direction == conv::Direction::kFprop));
    CHECK((s.x() == s.w() && s.w() == s.y()));
    CHECK(s.gemm.cluster_m * s.gemm.cluster_n == 1);
  }
  conv::ConfigSpec mixed = conv::spec_of(80, conv::Direction::kDgrad, gemm::Dtype::kBf16);
  mixed.gemm.a = gemm::Dtype::kF16;  // dY
  mixed.gemm.d = gemm::Dtype::kF32;  // dX
  CHECK((mixed.y() == gemm::Dtype::kF16 && mixed.w() == gemm::Dtype::kBf16 && mixed.x() == gemm::Dtype::kF32));
  mixed.direction = conv::Direction::kWgrad;  // dY x X -> dW
  CHECK((mixed.y() == gemm::Dtype::kF16 && mixed.x() == gemm::Dtype::kBf16 && mixed.w() == gemm::Dtype::kF32));
}

TEST_CASE("dropped convolution candidates carry the message of the check they fail", "[tuning][conv]") {
  int dropped = 0;
  for (int i = 0; i < kWide.size; ++i) {
    tuning::ConvCandidate const& c = kWide.items[i];
    CHECK(c.error == conv::check(c.spec));
    if (c.valid()) continue;
    ++dropped;
    std::string const why = conv::config_error_message(c.spec);
    INFO(tuning::name(c.spec) << ": " << why);
    CHECK(c.error == conv::ConfigError::kGemm);  // the space's drops: too much shared memory for the stages
    CHECK(conv::gemm_error(c.spec) == gemm::ConfigError::kSharedMemory);
    CHECK(why.rfind("gemm::Config: the pipeline needs more shared memory", 0) == 0);
  }
  CHECK(dropped == 54);
  CHECK(tuning::find_conv_candidate("sm90_bf16_fprop_128x256x64_2wg_coop_s5")->error == conv::ConfigError::kGemm);
}

TEST_CASE("conv::check refuses what the convolution kernels cannot take, with its message", "[tuning][conv]") {
  STATIC_REQUIRE(conv::check(sm90(conv::Direction::kFprop, 128, 6)) == conv::ConfigError::kNone);
  conv::ConfigSpec orders = sm90(conv::Direction::kDgrad, 128, 6);
  orders.gemm.b_k_major = true;  // Fprop's orders for a Dgrad
  CHECK(conv::check(orders) == conv::ConfigError::kOrders);
  CHECK_THAT(conv::config_error_message(orders), Catch::StartsWith("conv::Config: the GEMM's operand orders are not the direction's"));
  conv::ConfigSpec fp8 = sm90(conv::Direction::kFprop, 128, 6);
  fp8.gemm.a = fp8.gemm.b = gemm::Dtype::kE4m3;
  fp8.gemm.bk = 128;
  CHECK(conv::gemm_error(fp8) == gemm::ConfigError::kNone);  // a valid GEMM, not a convolution
  CHECK(conv::check(fp8) == conv::ConfigError::kTypes);
  CHECK_THAT(conv::config_error_message(fp8), Catch::StartsWith("conv::check: a conv::ConfigSpec takes one 16-bit type for x, w and y"));
  conv::ConfigSpec cluster = sm90(conv::Direction::kFprop, 128, 4);
  cluster.gemm.cluster_m = 2;
  CHECK(conv::check(cluster) == conv::ConfigError::kNone);  // the loaders share tiles in clusters as the GEMM's do
  conv::ConfigSpec dgrad_cluster = sm90(conv::Direction::kDgrad, 64, 8);
  dgrad_cluster.gemm.cluster_m = 2;  // Dgrad's B is N-major: shared in whole 64-column blocks of a 128-wide tile
  CHECK(conv::check(dgrad_cluster) == conv::ConfigError::kGemm);
  CHECK(std::string(conv::config_error_message(dgrad_cluster)) == gemm::config_error_message(gemm::ConfigError::kCluster));
  conv::ConfigSpec amd = conv::spec_of(0, conv::Direction::kFprop, gemm::Dtype::kF16);
  amd.gemm.gfx = 0x90a;
  CHECK(conv::check(amd) == conv::ConfigError::kAmd);
  conv::ConfigSpec big = sm90(conv::Direction::kWgrad, 256, 8);
  CHECK(conv::check(big) == conv::ConfigError::kGemm);
  CHECK(std::string(conv::config_error_message(big)) == gemm::config_error_message(gemm::ConfigError::kSharedMemory));
}

TEST_CASE("a convolution spec as C++: the direction and the GEMM's spec", "[tuning][conv]") {
  std::string const init = tuning::cpp_initializer(kReduced.items[4].spec);
  CHECK_THAT(init, Catch::StartsWith("{.direction = tessera::conv::Direction::kWgrad, .gemm = {.arch_cc = 90, "));
  CHECK_THAT(init, Catch::Contains(".a_k_major = false, .b_k_major = false") && Catch::Contains(".bm = 128, .bn = 256, .bk = 64") &&
                       Catch::Contains(".consumers = 2") && Catch::EndsWith(".stages = 4}}"));
  CHECK(init.find(tuning::cpp_initializer(kReduced.items[4].spec.gemm)) != std::string::npos);
  CHECK(std::string(tuning::conv_space_name(ConvSpaceSize::kWide)) == "wide");
}
