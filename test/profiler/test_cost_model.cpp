// The static cost model: monotone in the problem's size for every configuration, the automatic
// split-K it assumes, and sensible preferences (big tiles for big problems, narrow ones for decode);
// attention's: monotone in the problem, cheaper under a mask.
#include <catch2/catch.hpp>

#include "cost_model.hpp"
#include "tessera/tuning/attention_space.hpp"
#include "tessera/tuning/gemm_space.hpp"

using namespace tessera;
using namespace tessera::profiler;

namespace {
auto const kSpace = tuning::gemm_space(tuning::SpaceSize::kDefault);

gemm::ConfigSpec const& spec_named(std::string const& name) {
  tuning::Candidate const* c = tuning::find_candidate(name);
  REQUIRE(c != nullptr);
  return c->spec;
}

// The best configuration by the model for a bf16 tn problem on the H100 model (with swap variants).
std::string best_bf16_tn(ProblemShape p) {
  DeviceModel const d = h100();
  double best = 1e300;
  std::string name;
  for (int i = 0; i < kSpace.size; ++i) {
    auto const& c = kSpace.items[i];
    if (!c.valid() || c.spec.a != gemm::Dtype::kBf16 || !c.spec.a_k_major || !c.spec.b_k_major) continue;
    for (bool swap : {false, true}) {
      if (swap && !c.spec.warp_specialized()) continue;
      double const t = predict_us(c.spec, swap, p, d);
      if (t < best) {
        best = t;
        name = tuning::name(c.spec) + (swap ? "_swap" : "");
      }
    }
  }
  return name;
}
}  // namespace

// A larger M, N or K never costs less while the GEMM's automatic split-K stays the same. Where the
// split changes, the GEMM itself can get faster with size (M = 127 of a 128 x 256 tile is cut into
// 8 K slices whose partial sums cost more than M = 500's 2 slices; 65 k-tiles make 13 slices of 5
// where 64 made 16 of 4), and the model may follow it.
TEST_CASE("the cost model never predicts less time for a larger problem", "[profiler][cost]") {
  DeviceModel const d = h100();
  std::vector<int> const sizes = {1, 7, 16, 64, 127, 128, 500, 1024, 4096, 4099, 14336};
  for (int i = 0; i < kSpace.size; ++i) {
    auto const& c = kSpace.items[i];
    if (!c.valid()) continue;
    for (bool swap : {false, true}) {
      for (int base : {16, 4096}) {
        for (int axis = 0; axis < 3; ++axis) {
          double last = 0;
          int last_split = 0;
          for (int v : sizes) {
            ProblemShape p{base, base, base, 1};
            (axis == 0 ? p.m : axis == 1 ? p.n : p.k) = v;
            double const t = predict_us(c.spec, swap, p, d);
            ProblemShape kernel_view = p;
            if (swap) std::swap(kernel_view.m, kernel_view.n);
            int const split = automatic_split(c.spec, kernel_view, d.sms);
            if (split != last_split) last = 0;  // a new split: compare from here on
            last_split = split;
            INFO(tuning::name(c.spec) << (swap ? " swapped" : "") << ": axis " << axis << " = " << v << " (others " << base
                                      << "): " << t << " us after " << last << " us");
            REQUIRE(t > 0);
            REQUIRE(t >= last * (1 - 1e-12));
            last = t;
          }
        }
      }
    }
  }
}

TEST_CASE("the model's split-K is the GEMM's automatic choice", "[profiler][cost]") {
  gemm::ConfigSpec const s = spec_named("sm90_bf16_tn_64x64x64_1wg_coop_s12");
  CHECK(automatic_split(s, {4096, 4096, 4096, 1}, 132) == 1);   // 4096 tiles
  CHECK(automatic_split(s, {1, 4096, 4096, 1}, 132) == 2);      // 64 tiles: 132 / 64
  CHECK(automatic_split(s, {1, 1024, 4096, 1}, 132) == 8);      // 16 tiles: 8 slices of 8 k-tiles
  CHECK(automatic_split(s, {1, 64, 4096, 1}, 132) == 16);       // at most 16
  CHECK(automatic_split(s, {1, 64, 256, 1}, 132) == 1);         // 4 k-tiles: none shorter than 4
  gemm::ConfigSpec const t = spec_named("sm80_bf16_tn_128x128x32_2x2w_s3");
  CHECK(automatic_split(t, {128, 1024, 4096, 1}, 108) == 13);   // 8 tiles: ceil(108 / 8) = 14 slices of 10 k-tiles = 13
}

TEST_CASE("the model prefers big tiles for big problems and narrow ones for decode", "[profiler][cost]") {
  std::string const big = best_bf16_tn({8192, 8192, 8192, 1});
  INFO(big);
  CHECK((big.find("sm90_") == 0 && (big.find("128x256") != std::string::npos || big.find("128x192") != std::string::npos)));
  std::string const decode = best_bf16_tn({16, 4096, 4096, 1});
  INFO(decode);
  CHECK(decode.find("sm90_") == 0);
  CHECK(decode.find("128x256") == std::string::npos);  // 16 output tiles of 128 x 256 would leave most SMs idle
  // Bandwidth-bound: every sm90 candidate is predicted within the DRAM floor plus fixed costs' reach.
  DeviceModel const d = h100();
  double const floor_us = 2.0 * 4096 * 4096 / (d.dram_gbps * 1e3);
  CHECK(predict_us(spec_named("sm90_bf16_tn_64x64x64_1wg_coop_s12"), false, {16, 4096, 4096, 1}, d) < 2.5 * floor_us);
}

TEST_CASE("top-k takes the best predictions, at most two of a tile family", "[profiler][cost]") {
  auto spec = [](int bm, int bn, int stages) {
    gemm::ConfigSpec s;
    s.arch_cc = 90;
    s.bm = bm;
    s.bn = bn;
    s.consumers = 1;
    s.stages = stages;
    return s;
  };
  std::vector<Prediction> const c = {{spec(64, 64, 4), 10.0}, {spec(64, 64, 8), 10.0}, {spec(64, 64, 12), 10.0},
                                     {spec(64, 32, 4), 11.0}, {spec(64, 128, 4), 9.0},  {spec(64, 32, 8), 12.0}};
  // 64x128 first; then the 64x64 ties, deeper stages first, two of them; then 64x32 twice.
  CHECK(select_top_k(c, 8) == std::vector<int>{4, 2, 1, 3, 5});
  CHECK(select_top_k(c, 3) == std::vector<int>{4, 2, 1});
  CHECK(select_top_k(c, 8, 1) == std::vector<int>{4, 2, 3});
  CHECK(select_top_k({}, 8).empty());
}

// Attention: a longer sequence or more heads never costs less; where a tile has several blocks of
// keys and the tiles fill more than a wave, a causal mask costs less than none on the same problem
// and a narrow window less than causal (with one block, causal masks it and saves nothing; in one
// wave the longest tile, which sees every key, sets the time); a launch bounds every problem from
// below.
TEST_CASE("the attention model grows with the problem and shrinks with the mask", "[profiler][cost][attention]") {
  DeviceModel const d = h100();
  auto const space = tuning::attention_space(tuning::AttentionSpaceSize::kDefault);
  auto shape = [](int batch, int heads, int s, int dim, char const* mask) {
    AttentionShape a;
    a.batch = batch, a.heads = heads, a.heads_kv = heads, a.seqlen_q = a.seqlen_k = s, a.head_dim = a.head_dim_v = dim;
    REQUIRE(parse_attention_mask(mask, a.mask).ok());
    return a;
  };
  int checked = 0;
  for (int i = 0; i < space.size; ++i) {
    tuning::AttentionCandidate const& c = space.items[i];
    if (!c.valid() || c.spec.mask != tuning::AttentionMask::kNone) continue;
    attention::ConfigSpec const& s = c.spec.config;
    INFO(tuning::name(c.spec));
    for (int len : {128, 1000, 4096}) {
      double const none = predict_attention_us(s, shape(2, 16, len, s.head_dim, "none"), d);
      CHECK(predict_attention_us(s, shape(2, 16, 2 * len, s.head_dim, "none"), d) >= none);
      CHECK(predict_attention_us(s, shape(2, 32, len, s.head_dim, "none"), d) >= none);
      double const causal = predict_attention_us(s, shape(2, 16, len, s.head_dim, "causal"), d);
      if (len > 2 * s.bkv && len >= 1000) {  // (one wave of few tiles: the longest tile, as long under causal, sets the time)
        CHECK(causal < none);
        CHECK(predict_attention_us(s, shape(2, 16, len, s.head_dim, "window:64,0"), d) < causal);
      }
      CHECK(none > d.launch_us);
      ++checked;
    }
  }
  // 27 kernels without a mask in the default space (16 Hopper bf16 and f16, 3 fp8, 8 sm80), three
  // lengths each.
  CHECK(checked == 3 * 27);
  // The tile family stands for BQ x BKV (and the sm80 kernel's warps).
  gemm::ConfigSpec const f = attention_family(space.items[0].spec.config);
  CHECK((f.bm == space.items[0].spec.config.bq && f.bn == space.items[0].spec.config.bkv && f.consumers == 2));
  gemm::ConfigSpec const f80 = attention_family(tuning::detail::attention_spec_sm80(gemm::Dtype::kBf16, {128, 128}, {64, 64}, 2));
  CHECK((f80.arch_cc == 80 && f80.bm == 64 && f80.consumers == 0 && f80.warps_m == 4));
}

// On the same tile, fp8 costs less than bf16 (twice the tensor rate, half the bytes), and the sm80
// kernel more than the Hopper kernel (mma.sync's rate, the softmax not hidden). A packed batch of
// variable lengths costs no more than the fixed-length batch of its longest sequences, and more
// with a longer sequence.
TEST_CASE("the attention model: fp8, the sm80 kernel and variable lengths", "[profiler][cost][attention]") {
  DeviceModel const d = h100();
  using tuning::detail::attention_spec;
  using tuning::detail::attention_spec_sm80;
  AttentionShape a;
  REQUIRE(parse_attention_problem("batch=2 heads=16 sq=4096 sk=4096 dim=128 mask=causal", a).ok());
  attention::ConfigSpec const bf16 = attention_spec(gemm::Dtype::kBf16, {128, 128}, {128, 128}, 2);
  attention::ConfigSpec const fp8 = attention_spec(gemm::Dtype::kE4m3, {128, 128}, {128, 128}, 2);
  attention::ConfigSpec const sm80 = attention_spec_sm80(gemm::Dtype::kBf16, {128, 128}, {64, 64}, 2);
  REQUIRE((attention::check(bf16) == attention::ConfigError::kNone && attention::check(fp8) == attention::ConfigError::kNone &&
           attention::check(sm80) == attention::ConfigError::kNone));
  CHECK(predict_attention_us(fp8, a, d) < predict_attention_us(bf16, a, d));
  CHECK(predict_attention_us(sm80, a, d) > predict_attention_us(bf16, a, d));

  AttentionShape packed, longer, fixed;
  REQUIRE(parse_attention_problem("heads=16 seqlens=512,1024,0,1,3000 dim=128 mask=causal", packed).ok());
  REQUIRE(parse_attention_problem("heads=16 seqlens=512,1024,0,1,4000 dim=128 mask=causal", longer).ok());
  REQUIRE(parse_attention_problem("batch=5 heads=16 sq=3000 sk=3000 dim=128 mask=causal", fixed).ok());
  for (attention::ConfigSpec const& s : {bf16, fp8}) {
    double const t = predict_attention_us(s, packed, d);
    CHECK(t > d.launch_us);
    CHECK(t < predict_attention_us(s, fixed, d));
    CHECK(t < predict_attention_us(s, longer, d));
  }
}
