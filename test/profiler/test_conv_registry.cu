// The convolution registry's entries and conv::ConfigOf: every valid spec of the wide space is a
// conv::Config of the same direction whose GEMM has the same spec; entries carry their metadata;
// the refusals need no GPU (a problem of another direction or type names both; null tensors reach
// conv::Conv::can_implement; run launches nothing when refused).
#include <catch2/catch.hpp>

#include <utility>

#include "tessera/conv/config_of.hpp"
#include "tessera/tuning/register_conv.hpp"

using namespace tessera;

namespace {
constexpr auto kWide = tuning::conv_space(tuning::ConvSpaceSize::kWide);
constexpr auto kReduced = tuning::conv_space(tuning::ConvSpaceSize::kReduced);

template <std::size_t I>
constexpr bool round_trips() {
  if constexpr (!kWide.items[I].valid()) {
    return true;
  } else {
    constexpr conv::ConfigSpec spec = kWide.items[I].spec;
    using Cfg = conv::ConfigOf<spec>;
    return Cfg::Gemm::valid && Cfg::Gemm::spec == spec.gemm && Cfg::direction == spec.direction &&
           gemm::dtype_of<typename Cfg::ElementX> == spec.x() && gemm::dtype_of<typename Cfg::ElementW> == spec.w() &&
           gemm::dtype_of<typename Cfg::ElementY> == spec.y();
  }
}
template <std::size_t... I>
constexpr bool configs_round_trip(std::index_sequence<I...>) {
  return (round_trips<I>() && ...);
}

// The reduced space's sm80 Fprop and sm90 Wgrad.
constexpr conv::ConfigSpec kSm80Fprop = kReduced.items[1].spec;
constexpr conv::ConfigSpec kSm90Wgrad = kReduced.items[4].spec;

tuning::ConvProblem problem(conv::Direction d, gemm::Dtype t) {
  tuning::ConvProblem p;
  p.problem.n = 2;
  p.problem.h = p.problem.w = 8;
  p.problem.c = p.problem.k = 64;
  p.problem.r = p.problem.s = 3;
  p.problem.pad_before = p.problem.pad_after = {0, 1, 1};
  p.direction = d;
  p.dtype = t;
  return p;  // null tensors
}
}  // namespace

TEST_CASE("every valid convolution spec is a conv::Config with the same direction and GEMM spec", "[profiler][registry][conv]") {
  STATIC_REQUIRE(configs_round_trip(std::make_index_sequence<std::size_t(kWide.size)>{}));
}

TEST_CASE("convolution registry entries carry their configuration's metadata", "[profiler][registry][conv]") {
  static_assert(kSm80Fprop.gemm.arch_cc == 80 && kSm80Fprop.direction == conv::Direction::kFprop);
  static_assert(kSm90Wgrad.gemm.arch_cc == 90 && kSm90Wgrad.direction == conv::Direction::kWgrad);
  tuning::ConvRegistry r;
  tuning::register_conv<kSm80Fprop>(r);
  tuning::register_conv<kSm90Wgrad>(r);
  REQUIRE(r.kernels().size() == 2);
  tuning::ConvKernel const& k80 = r.kernels()[0];
  tuning::ConvKernel const& k90 = r.kernels()[1];
  CHECK(k80.name == "sm80_bf16_fprop_128x128x32_2x2w_s4");
  CHECK(k90.name == "sm90_bf16_wgrad_128x256x64_2wg_coop_s4");
  CHECK(r.find(k90.name) == &k90);
  CHECK(r.find("sm90_bf16_tn_128x256x64_2wg_coop_s4") == nullptr);
  CHECK(k80.smem_bytes == conv::ConfigOf<kSm80Fprop>::Gemm::smem_bytes);
  CHECK(k90.smem_bytes == conv::ConfigOf<kSm90Wgrad>::Gemm::smem_bytes);
  CHECK((k80.threads == 128 && k90.threads == 384));
  CHECK(k90.spec == kSm90Wgrad);
}

TEST_CASE("convolution registry entries refuse what they cannot run, and say why", "[profiler][registry][conv]") {
  tuning::ConvRegistry r;
  tuning::register_conv<kSm90Wgrad>(r);
  tuning::ConvKernel const& k = r.kernels()[0];
  for (auto const& other : {problem(conv::Direction::kFprop, gemm::Dtype::kBf16), problem(conv::Direction::kWgrad, gemm::Dtype::kF16)})
    for (Status const& s : {k.can_implement(other), k.run(other, nullptr)}) {
      CHECK(s.code() == StatusCode::kNotSupported);
      CHECK_THAT(s.message(), Catch::Contains("sm90_bf16_wgrad_128x256x64_2wg_coop_s4 computes wgrad bf16; the problem is") &&
                                  Catch::Contains("pick a kernel of the problem's direction and type"));
    }
  // Its own direction and type with null tensors: conv::Conv refuses them, before any device check.
  for (Status const& s : {k.can_implement(problem(conv::Direction::kWgrad, gemm::Dtype::kBf16)),
                          k.run(problem(conv::Direction::kWgrad, gemm::Dtype::kBf16), nullptr)}) {
    CHECK(s.code() == StatusCode::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains("x, w and y must be device pointers (one is null)"));
  }
}
