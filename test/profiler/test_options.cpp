// The profiler's command-line vocabulary: integer lists and ranges, dtypes, layouts, epilogue
// names, kernel globs; each error names the valid choices.
#include <catch2/catch.hpp>
#include <array>
#include <cstdio>
#include <string>

#include "options.hpp"
#include "tessera/tuning/epilogue_stages.hpp"

using namespace tessera;
using namespace tessera::profiler;

TEST_CASE("integer lists and ranges", "[profiler][cli]") {
  std::vector<int> v;
  REQUIRE(parse_int_list("4096", v).ok());
  CHECK(v == std::vector<int>{4096});
  REQUIRE(parse_int_list("16,128,4096", v).ok());
  CHECK(v == std::vector<int>{16, 128, 4096});
  REQUIRE(parse_int_list("64:256:64", v).ok());
  CHECK(v == std::vector<int>{64, 128, 192, 256});
  REQUIRE(parse_int_list("1,16:40:12,7", v).ok());
  CHECK(v == std::vector<int>{1, 16, 28, 40, 7});
  REQUIRE(parse_int_list("5:5:3", v).ok());
  CHECK(v == std::vector<int>{5});
  for (char const* bad : {"", "0", "-4", "a", "16,", ",16", "4:2:1", "1:2", "1:8:0", "1::2", "3x"}) {
    INFO(bad);
    Status const s = parse_int_list(bad, v);
    CHECK_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains("start:end:step"));
  }
  CHECK(v == std::vector<int>{5});  // untouched by the failures
}

TEST_CASE("dtypes and layouts, with their aliases and the choices on error", "[profiler][cli]") {
  ProblemTypes t;
  REQUIRE(parse_dtype("bf16", t).ok());
  CHECK((t.a == gemm::Dtype::kBf16 && t.d == gemm::Dtype::kBf16 && t.name == "bf16"));
  REQUIRE(parse_dtype("fp16", t).ok());
  CHECK(t.name == "f16");
  REQUIRE(parse_dtype("f32", t).ok());
  CHECK((t.a == gemm::Dtype::kF32 && t.name == "tf32"));
  REQUIRE(parse_dtype("s8", t).ok());
  CHECK((t.a == gemm::Dtype::kInt8 && t.d == gemm::Dtype::kInt32));
  REQUIRE(parse_dtype("fp8", t).ok());
  CHECK((t.a == gemm::Dtype::kE4m3 && t.d == gemm::Dtype::kBf16 && t.name == "e4m3"));
  Status s = parse_dtype("bf17", t);
  CHECK_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("unknown dtype 'bf17'") && Catch::Contains("bf16, f16") && Catch::Contains("e4m3"));

  Layout l;
  REQUIRE(parse_layout("nt", l).ok());
  CHECK((!l.a_k_major && !l.b_k_major));
  REQUIRE(parse_layout("tt", l).ok());
  CHECK((l.a_k_major && !l.b_k_major));
  for (bool a : {true, false})
    for (bool b : {true, false}) {
      REQUIRE(parse_layout(layout_name(a, b), l).ok());
      CHECK((l.a_k_major == a && l.b_k_major == b));
    }
  s = parse_layout("rc", l);
  CHECK_THAT(s.message(), Catch::Contains("unknown layout 'rc'") && Catch::Contains("tn (row-major A, column-major B)"));
}

TEST_CASE("kernel globs", "[profiler][cli]") {
  CHECK(glob_match("sm90_*", "sm90_bf16_tn_128x256x64_2wg_coop_s4"));
  CHECK(glob_match("*coop*s4", "sm90_bf16_tn_128x256x64_2wg_coop_s4"));
  CHECK(glob_match("sm?0_*", "sm80_bf16"));
  CHECK(glob_match("*", ""));
  CHECK_FALSE(glob_match("sm90_*", "sm80_bf16"));
  CHECK_FALSE(glob_match("*_swap", "sm90_bf16_tn_64x32x64_1wg_coop_s12"));
  CHECK(glob_match("a*b*c", "a_x_b_y_c"));
  CHECK_FALSE(glob_match("a*b*c", "a_x_c_y_b"));
  CHECK(matches_any("sm80_*,*_swap", "sm90_bf16_x_swap"));
  CHECK_FALSE(matches_any("sm80_*,*_swap", "sm90_bf16_x"));
}

TEST_CASE("a filter that matches nothing suggests the nearest names; counts name their range", "[profiler][cli]") {
  std::vector<std::string> const names = {"sm80_bf16_tn_128x128x32_2x2w_s3", "sm90_bf16_tn_128x256x64_2wg_coop_s4",
                                          "sm90_bf16_tn_128x128x64_2wg_pingpong_s4", "sm90_f16_tn_128x256x64_2wg_coop_s4"};
  auto const near = nearest_names("sm90_bf16_tn_128x265*", names, 2);
  REQUIRE(near.size() == 2);
  CHECK(near[0] == "sm90_bf16_tn_128x256x64_2wg_coop_s4");
  CHECK(nearest_names("sm90_f16*,sm80*", names, 1).size() == 1);
  CHECK(parse_count("--top-k", "0", 0).ok());
  CHECK(parse_count("--top-k", "-1", 0).message() == "invalid argument: --top-k -1: must be a whole number of at least 0");
  CHECK_FALSE(parse_count("--top-k", "3x", 0).ok());
  CHECK(parse_count("--batch", "65536", 1, 65535).message() ==
        "invalid argument: --batch 65536: must be a whole number of at least 1 and at most 65535");
}

TEST_CASE("explicit problems: MxNxK lists and files", "[profiler][cli]") {
  std::vector<std::array<int, 3>> p;
  REQUIRE(parse_problems("16x4096x4096,4096x14336x4096", p).ok());
  REQUIRE(p.size() == 2);
  CHECK(p[0] == std::array<int, 3>{16, 4096, 4096});
  CHECK(p[1] == std::array<int, 3>{4096, 14336, 4096});
  REQUIRE(parse_problems("1x1x1 7x8x9", p).ok());
  CHECK(p.size() == 2);
  for (char const* bad : {"16x4096", "0x1x1", "1x1x1x1", "ax1x1", "", "1x1x"}) {
    INFO(bad);
    CHECK_FALSE(parse_problems(bad, p).ok());
  }
  char const* path = "test_options_problems.txt";
  {
    std::FILE* f = std::fopen(path, "w");
    REQUIRE(f != nullptr);
    std::fputs("# decode shapes\n1x4096x4096 16x4096x4096\n128x4096x4096  # prefill-like\n", f);
    std::fclose(f);
  }
  REQUIRE(parse_problems(std::string("@") + path, p).ok());
  CHECK(p.size() == 3);
  CHECK(p[2] == std::array<int, 3>{128, 4096, 4096});
  std::remove(path);
  CHECK_THAT(parse_problems("@no_such_file.txt", p).message(), Catch::Contains("cannot read no_such_file.txt"));
}

TEST_CASE("epilogue names parse to stages in the chain's order and print back", "[profiler][cli][epilogue]") {
  tuning::EpilogueStages e;
  REQUIRE(tuning::parse_epilogue("none", e).ok());
  CHECK_FALSE(e.any());
  REQUIRE(tuning::parse_epilogue("bias_gelu", e).ok());
  CHECK((e.bias && e.activation == epilogue::Activation::kGeluTanh && !e.linear && !e.residual));
  REQUIRE(tuning::parse_epilogue("residual+relu+linear+bias", e).ok());
  CHECK(tuning::epilogue_name(e) == "linear_bias_relu_residual");
  REQUIRE(tuning::parse_epilogue("scale_shift_gelu_erf", e).ok());
  CHECK((e.scale_shift && e.activation == epilogue::Activation::kGeluErf));
  REQUIRE(tuning::parse_epilogue("bias_gelu_erf", e).ok());
  CHECK(tuning::epilogue_name(e) == "bias_gelu_erf");

  // Every combination survives name -> parse.
  for (int mask = 0; mask < 16; ++mask)
    for (auto act : {epilogue::Activation::kIdentity, epilogue::Activation::kRelu, epilogue::Activation::kGeluTanh,
                     epilogue::Activation::kGeluErf, epilogue::Activation::kSigmoid, epilogue::Activation::kSilu,
                     epilogue::Activation::kClamp}) {
      tuning::EpilogueStages const want{bool(mask & 1), bool(mask & 2), bool(mask & 4), act, bool(mask & 8)};
      tuning::EpilogueStages got;
      INFO(tuning::epilogue_name(want));
      REQUIRE(tuning::parse_epilogue(tuning::epilogue_name(want), got).ok());
      CHECK(got == want);
    }

  for (auto [text, why] : {std::pair{"bias_gleu", "unknown stage 'gleu'"}, std::pair{"relu_gelu", "two activations"},
                           std::pair{"bias+bias", "'bias' appears twice"}, std::pair{"bias_", "ends with a separator"},
                           std::pair{"", "no stage named"}}) {
    INFO(text);
    Status const s = tuning::parse_epilogue(text, e);
    CHECK_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains(why) && Catch::Contains("none, linear, bias, scale_shift, relu, gelu, gelu_erf"));
  }
}

TEST_CASE("the static epilogues are exactly bias with no, relu, gelu or silu activation", "[profiler][epilogue]") {
  auto stages = [](char const* text) {
    tuning::EpilogueStages e;
    REQUIRE(tuning::parse_epilogue(text, e).ok());
    return e;
  };
  CHECK(tuning::static_epilogue_of(stages("bias")) == tuning::kStaticBias);
  CHECK(tuning::static_epilogue_of(stages("bias_relu")) == tuning::kStaticBiasRelu);
  CHECK(tuning::static_epilogue_of(stages("bias_gelu")) == tuning::kStaticBiasGelu);
  CHECK(tuning::static_epilogue_of(stages("bias_silu")) == tuning::kStaticBiasSilu);
  for (char const* other : {"none", "gelu", "bias_gelu_erf", "linear_bias_gelu", "bias_gelu_residual", "scale_shift_relu"}) {
    INFO(other);
    CHECK(tuning::static_epilogue_of(stages(other)) == 0);
  }
}
