// The attention registry's entries and attention::ConfigOf: every valid spec of the wide space is
// an attention::Config with the same fields (and spec_of gives the spec back), and every dropped one
// fails a check attention::Config makes; entries carry their metadata; the refusals need no GPU (a
// problem of another type or mask names both; null tensors reach attention::Attention::can_implement;
// run launches nothing when refused).
#include <catch2/catch.hpp>

#include <utility>

#include "tessera/attention/config_of.hpp"
#include "tessera/tuning/register_attention.hpp"

using namespace tessera;

namespace {
constexpr auto kWide = tuning::attention_space(tuning::AttentionSpaceSize::kWide);
constexpr auto kReduced = tuning::attention_space(tuning::AttentionSpaceSize::kReduced);

template <std::size_t I>
constexpr bool round_trips() {
  if constexpr (!kWide.items[I].valid()) {
    return true;
  } else {
    constexpr attention::ConfigSpec spec = kWide.items[I].spec.config;
    using Cfg = attention::ConfigOf<spec, tuning::MaskChain<kWide.items[I].spec.mask>>;
    return attention::spec_of<Cfg> == spec && Cfg::smem_bytes == spec.smem_bytes() && Cfg::threads == spec.threads();
  }
}
template <std::size_t... I>
constexpr bool configs_round_trip(std::index_sequence<I...>) {
  return (round_trips<I>() && ...);
}

// The reduced space's first kernel (128 x 128, no mask) and its causal one.
constexpr tuning::AttentionSpec kPlain = kReduced.items[0].spec;
constexpr tuning::AttentionSpec kCausal = kReduced.items[2].spec;

tuning::AttentionProblem problem(gemm::Dtype t, tuning::AttentionMask m) {
  tuning::AttentionProblem p;
  p.problem = attention::Problem::dense(1, 2, 2, 64, 64, 128, attention::Layout::kBSHD);
  p.dtype = t;
  p.mask = m;
  return p;  // null tensors
}
}  // namespace

TEST_CASE("every valid attention spec is an attention::Config with the same fields", "[profiler][registry][attention]") {
  STATIC_REQUIRE(configs_round_trip(std::make_index_sequence<std::size_t(kWide.size)>{}));
  int smem = 0, smem80 = 0, registers = 0, sm80 = 0, fp8 = 0;
  for (int i = 0; i < kWide.size; ++i) {
    attention::ConfigSpec const& x = kWide.items[i].spec.config;
    if (kWide.items[i].valid()) {
      sm80 += x.arch_cc == 80 ? 1 : 0;
      fp8 += x.element == gemm::Dtype::kE4m3 ? 1 : 0;
      continue;
    }
    // The wide space's three reasons.
    attention::ConfigError const e = kWide.items[i].error;
    CHECK((e == attention::ConfigError::kSharedMemory || e == attention::ConfigError::kSm80SharedMemory ||
           e == attention::ConfigError::kThreeConsumerRegisters));
    smem += e == attention::ConfigError::kSharedMemory ? 1 : 0;
    smem80 += e == attention::ConfigError::kSm80SharedMemory ? 1 : 0;
    registers += e == attention::ConfigError::kThreeConsumerRegisters ? 1 : 0;
    CHECK_THAT(attention::config_error_message(e), Catch::Contains("227 KB of shared memory") || Catch::Contains("163 KB of shared memory") ||
                                                       Catch::Contains("160 registers"));
  }
  CHECK((smem > 0 && smem80 > 0 && registers > 0 && sm80 > 0 && fp8 > 0));
  // The checks' order and messages, one failure each; any head dimension a multiple of 8.
  attention::ConfigSpec s = kPlain.config;
  CHECK(attention::check(s) == attention::ConfigError::kNone);
  attention::ConfigSpec odd = s;
  odd.head_dim = 72, odd.head_dim_v = 40;
  CHECK((attention::check(odd) == attention::ConfigError::kNone && odd.head_dim_padded() == 128 && odd.head_dim_v_padded() == 64));
  for (auto [change, error] : {std::pair{+[](attention::ConfigSpec& x) { x.arch_cc = 70; }, attention::ConfigError::kArch},
                               std::pair{+[](attention::ConfigSpec& x) { x.element = gemm::Dtype::kF32; }, attention::ConfigError::kElement},
                               std::pair{+[](attention::ConfigSpec& x) { x.element = gemm::Dtype::kE4m3, x.arch_cc = 80; }, attention::ConfigError::kFp8Arch},
                               std::pair{+[](attention::ConfigSpec& x) { x.element = gemm::Dtype::kE4m3, x.bkv = 64; }, attention::ConfigError::kFp8Tile},
                               std::pair{+[](attention::ConfigSpec& x) { x.element = gemm::Dtype::kE4m3, x.head_dim_v = 64; }, attention::ConfigError::kFp8Tile},
                               std::pair{+[](attention::ConfigSpec& x) { x.warps = 4; }, attention::ConfigError::kHopperWorkers},
                               std::pair{+[](attention::ConfigSpec& x) { x.arch_cc = 80; }, attention::ConfigError::kSm80Workers},
                               std::pair{+[](attention::ConfigSpec& x) { x.element = gemm::Dtype::kE4m3, x.consumers = 1, x.bq = 64; }, attention::ConfigError::kFp8Consumers},
                               std::pair{+[](attention::ConfigSpec& x) { x.head_dim = 100; }, attention::ConfigError::kHeadDim},
                               std::pair{+[](attention::ConfigSpec& x) { x.bq = 192; }, attention::ConfigError::kConsumers},
                               std::pair{+[](attention::ConfigSpec& x) { x.consumers = 1, x.bq = 64, x.turns = true; }, attention::ConfigError::kTurns},
                               std::pair{+[](attention::ConfigSpec& x) { x.consumers = 3, x.bq = 192; }, attention::ConfigError::kThreeConsumerRegisters},
                               std::pair{+[](attention::ConfigSpec& x) { x.bkv = 40; }, attention::ConfigError::kBlockKv},
                               std::pair{+[](attention::ConfigSpec& x) { x.stages = 5; }, attention::ConfigError::kStages},
                               std::pair{+[](attention::ConfigSpec& x) { x.stages = 4, x.head_dim = 256; }, attention::ConfigError::kSharedMemory}}) {
    attention::ConfigSpec x = s;
    change(x);
    CHECK(attention::check(x) == error);
    CHECK_THAT(std::string(attention::config_error_message(x)), Catch::StartsWith("attention::Config: ") || Catch::StartsWith("attention::check: "));
  }
  // fp8 on the same tile: valid, 128-column spans of Q and K, V and V^T in shared memory.
  attention::ConfigSpec f = s;
  f.element = gemm::Dtype::kE4m3;
  CHECK((attention::check(f) == attention::ConfigError::kNone && f.fp8() && f.head_dim_padded() == 128));
  f.head_dim = 64;
  CHECK((attention::check(f) == attention::ConfigError::kNone && f.head_dim_padded() == 128 && f.head_dim_v_padded() == 128));
  CHECK(f.smem_bytes() == 128 * 128 + 2 * (128 * 128 + 2 * 128 * 128) + 1024);
  // The sm80 kernel's checks, in order.
  attention::ConfigSpec const w{.arch_cc = 80, .element = gemm::Dtype::kF16, .head_dim = 128, .head_dim_v = 128, .bq = 64, .bkv = 64,
                                .consumers = 0, .warps = 4, .stages = 2};
  CHECK((attention::check(w) == attention::ConfigError::kNone && w.threads() == 128 && w.smem_bytes() == 64 * 128 * 2 + 2 * 2 * 64 * 128 * 2));
  for (auto [change, error] : {std::pair{+[](attention::ConfigSpec& x) { x.turns = true; }, attention::ConfigError::kSm80Workers},
                               std::pair{+[](attention::ConfigSpec& x) { x.warps = 3; }, attention::ConfigError::kSm80Warps},
                               std::pair{+[](attention::ConfigSpec& x) { x.bq = 128; }, attention::ConfigError::kSm80Warps},
                               std::pair{+[](attention::ConfigSpec& x) { x.bkv = 40; }, attention::ConfigError::kSm80BlockKv},
                               std::pair{+[](attention::ConfigSpec& x) { x.stages = 5; }, attention::ConfigError::kSm80Stages},
                               std::pair{+[](attention::ConfigSpec& x) { x.head_dim = x.head_dim_v = 256, x.bkv = 128; }, attention::ConfigError::kSm80SharedMemory}}) {
    attention::ConfigSpec x = w;
    change(x);
    CHECK(attention::check(x) == error);
    CHECK_THAT(std::string(attention::config_error_message(x)), Catch::StartsWith("attention::Config: ") || Catch::StartsWith("attention::check: "));
  }
}

TEST_CASE("attention registry entries carry their kernel's metadata", "[profiler][registry][attention]") {
  static_assert(kPlain.mask == tuning::AttentionMask::kNone && kCausal.mask == tuning::AttentionMask::kCausal);
  tuning::AttentionRegistry r;
  tuning::register_attention<kPlain>(r);
  tuning::register_attention<kCausal>(r);
  REQUIRE(r.kernels().size() == 2);
  tuning::AttentionKernel const& plain = r.kernels()[0];
  tuning::AttentionKernel const& causal = r.kernels()[1];
  CHECK(plain.name == "sm90_bf16_hd128_128x128_2wg_s2_none");
  CHECK(causal.name == "sm90_bf16_hd128_128x128_2wg_s2_causal");
  CHECK(r.find(causal.name) == &causal);
  CHECK(r.find("sm90_bf16_hd128_128x128_2wg_s2_window") == nullptr);
  CHECK((plain.smem_bytes == 128 * 128 * 2 + 2 * 2 * 128 * 128 * 2 + 1024 && plain.threads == 384));
  CHECK(causal.spec == kCausal);
  CHECK(tuning::find_attention_candidate(causal.name) != nullptr);
}

// An fp8 kernel and an sm80 one (not in the reduced space: CI compiles them here).
TEST_CASE("attention registry entries of fp8 and the sm80 kernel", "[profiler][registry][attention]") {
  constexpr tuning::AttentionSpec fp8{tuning::detail::attention_spec(gemm::Dtype::kE4m3, {128, 128}, {128, 128}, 2), tuning::AttentionMask::kCausal};
  constexpr tuning::AttentionSpec sm80{tuning::detail::attention_spec_sm80(gemm::Dtype::kBf16, {128, 128}, {64, 64}, 2), tuning::AttentionMask::kNone};
  tuning::AttentionRegistry r;
  tuning::register_attention<fp8>(r);
  tuning::register_attention<sm80>(r);
  tuning::AttentionKernel const& f = r.kernels()[0];
  tuning::AttentionKernel const& w = r.kernels()[1];
  CHECK(f.name == "sm90_e4m3_hd128_128x128_2wg_s2_causal");
  CHECK((f.smem_bytes == 128 * 128 + 2 * (128 * 128 + 2 * 128 * 128) + 1024 && f.threads == 384));
  CHECK(w.name == "sm80_bf16_hd128_64x64_4w_s2_none");
  CHECK((w.smem_bytes == 64 * 128 * 2 + 2 * 2 * 64 * 128 * 2 && w.threads == 128));
  CHECK((tuning::find_attention_candidate(f.name) != nullptr && tuning::find_attention_candidate(w.name) != nullptr));
  // A bf16 problem is not the fp8 kernel's; its own type with null tensors reaches attention::Attention.
  tuning::AttentionProblem p = problem(gemm::Dtype::kBf16, tuning::AttentionMask::kCausal);
  CHECK_THAT(f.can_implement(p).message(), Catch::Contains("computes e4m3 with mask causal; the problem is bf16 with mask causal"));
  p.dtype = gemm::Dtype::kE4m3;
  CHECK_THAT(f.can_implement(p).message(), Catch::Contains("q, k, v and o must be device pointers (one is null)"));
  CHECK_THAT(w.can_implement(problem(gemm::Dtype::kBf16, tuning::AttentionMask::kNone)).message(),
             Catch::Contains("q, k, v and o must be device pointers (one is null)"));
}

TEST_CASE("attention registry entries refuse what they cannot run, and say why", "[profiler][registry][attention]") {
  tuning::AttentionRegistry r;
  tuning::register_attention<kCausal>(r);
  tuning::AttentionKernel const& k = r.kernels()[0];
  for (auto const& other : {problem(gemm::Dtype::kBf16, tuning::AttentionMask::kNone), problem(gemm::Dtype::kF16, tuning::AttentionMask::kCausal)})
    for (Status const& s : {k.can_implement(other), k.run(other)}) {
      CHECK(s.code() == StatusCode::kNotSupported);
      CHECK_THAT(s.message(), Catch::Contains("sm90_bf16_hd128_128x128_2wg_s2_causal computes bf16 with mask causal; the problem is") &&
                                  Catch::Contains("pick a kernel of the problem's type and mask"));
    }
  // Its own type and mask with null tensors: attention::Attention refuses them, before any device check.
  for (Status const& s : {k.can_implement(problem(gemm::Dtype::kBf16, tuning::AttentionMask::kCausal)),
                          k.run(problem(gemm::Dtype::kBf16, tuning::AttentionMask::kCausal))}) {
    CHECK(s.code() == StatusCode::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains("q, k, v and o must be device pointers (one is null)"));
  }
}
