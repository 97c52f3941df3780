// The profiler's command-line vocabulary: integer lists and ranges, dtypes, layouts, epilogue
// names, kernel globs, convolution directions and problems, attention masks and problems; each
// error names the valid choices.
#include <catch2/catch.hpp>
#include <array>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>

#include "options.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/conv/problem.hpp"
#include "tessera/tuning/epilogue_stages.hpp"

using namespace tessera;
using namespace tessera::profiler;

namespace {
// Each text fails to parse: InvalidArgument, its message "<what> '<text>': <why>...".
template <class Parse>
void check_refused(char const* what, std::initializer_list<std::pair<char const*, char const*>> cases, Parse&& parse) {
  for (auto [text, why] : cases) {
    INFO(text);
    Status const s = parse(text);
    CHECK(s.code() == StatusCode::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains(std::string(what) + " '" + text + "': " + why));
  }
}
}  // namespace

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

TEST_CASE("convolution dtypes and directions, with the choices on error", "[profiler][cli][conv]") {
  ProblemTypes t;
  REQUIRE(parse_conv_dtype("half", t).ok());
  CHECK((t.a == gemm::Dtype::kF16 && t.name == "f16"));
  REQUIRE(parse_conv_dtype("bf16", t).ok());
  CHECK(parse_conv_dtype("tf32", t).message() ==
        "invalid argument: dtype 'tf32' has no convolution kernels; the convolution dtypes are bf16, f16 (fp16, half)");
  CHECK_THAT(parse_conv_dtype("bf17", t).message(), Catch::Contains("unknown dtype 'bf17'; the convolution dtypes are bf16, f16"));

  std::vector<conv::Direction> d;
  REQUIRE(parse_directions("wgrad,fprop", d).ok());
  CHECK(d == std::vector<conv::Direction>{conv::Direction::kWgrad, conv::Direction::kFprop});
  for (auto [text, why] : {std::pair{"bprop", "unknown direction 'bprop'; the directions are fprop (forward), dgrad"},
                           std::pair{"fprop,", "unknown direction ''"}, std::pair{"dgrad,dgrad", "'dgrad' is given twice"}}) {
    INFO(text);
    CHECK_THAT(parse_directions(text, d).message(), Catch::Contains(why));
  }
  CHECK(d.size() == 2);  // untouched by the failures
}

TEST_CASE("a convolution problem as key=value items, and back", "[profiler][cli][conv]") {
  conv::Problem p;
  REQUIRE(parse_conv_problem("n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1", p).ok());
  CHECK((p.n == 32 && p.d == 1 && p.h == 56 && p.c == 64 && p.k == 64 && p.t == 1 && p.r == 3 && p.s == 3 && p.groups == 1));
  CHECK((p.pad_before[0] == 0 && p.pad_before[1] == 1 && p.pad_after[2] == 1 && p.stride[1] == 1));
  CHECK((p.p() == 56 && p.q() == 56));
  CHECK(conv_problem_text(p) == "n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1");
  // 3-D: one value pads the depth too; HxW leaves the depth's stride 1. Commas separate as spaces do.
  REQUIRE(parse_conv_problem("n=4,d=8,h=56,w=56,c=128,k=128,t=3,r=3,s=3,pad=1,stride=2x2", p).ok());
  CHECK((p.pad_before[0] == 1 && p.stride[0] == 1 && p.stride[1] == 2 && p.z() == 8 && p.p() == 28));
  // 1-D: one value is the width's alone.
  REQUIRE(parse_conv_problem("n=1 w=100 c=16 k=32 s=5 pad=2 dilation=2", p).ok());
  CHECK((p.h == 1 && p.pad_before[1] == 0 && p.pad_before[2] == 2 && p.dilation[1] == 1 && p.dilation[2] == 2 && p.q() == 96));
  REQUIRE(parse_conv_problem("n=1 h=5 w=7 c=8 k=8 r=3 s=3 pad_before=1 pad_after=0x2 groups=2", p).ok());
  CHECK((p.pad_after[1] == 0 && p.pad_after[2] == 2 && p.groups == 2));
  CHECK(conv_problem_text(p) == "n=1 h=5 w=7 c=8 k=8 r=3 s=3 groups=2 pad_before=1 pad_after=0x2");

  // Every problem of a sweep survives text -> parse -> text.
  for (int dims = 1; dims <= 3; ++dims)
    for (int pad = 0; pad <= 2; ++pad)
      for (int stride = 1; stride <= 3; ++stride)
        for (int dilation = 1; dilation <= 2; ++dilation) {
          conv::Problem q;
          q.n = 2, q.w = 11, q.c = 16, q.k = 24, q.s = 3, q.groups = pad == 1 ? 8 : 1;
          if (dims >= 2) q.h = 9, q.r = 3;
          if (dims == 3) q.d = 5, q.t = 2;
          q.pad_before = {dims == 3 ? pad : 0, dims >= 2 ? pad : 0, pad};
          q.pad_after = {0, dims >= 2 ? 1 : 0, pad};
          q.stride = {1, dims >= 2 ? stride : 1, stride};
          q.dilation = {dims == 3 ? dilation : 1, 1, dilation};
          REQUIRE(conv::check(q).ok());
          std::string const text = conv_problem_text(q);
          INFO(text);
          conv::Problem back;
          REQUIRE(parse_conv_problem(text, back).ok());
          CHECK(conv_problem_text(back) == text);
          CHECK((back.pad_before[0] == q.pad_before[0] && back.pad_before[1] == q.pad_before[1] && back.pad_after[1] == q.pad_after[1] &&
                 back.stride[0] == q.stride[0] && back.stride[1] == q.stride[1] && back.dilation[0] == q.dilation[0] &&
                 back.dilation[2] == q.dilation[2] && back.t == q.t && back.groups == q.groups));
        }
}

TEST_CASE("bad convolution problems say what is wrong", "[profiler][cli][conv]") {
  conv::Problem p;
  check_refused("convolution",
                {std::pair{"n=1 w=5 c=8 k=8 s=3 pad=1x2x3x4", "pad=1x2x3x4: give V (each spatial dimension), HxW or DxHxW, whole numbers of at least 0"},
                 std::pair{"n=1 w=5 c=8 k=8 s=3 stride=0", "stride=0: give V"},
                 std::pair{"n=1 w=5 c=8 k=8 s=3 pad=-1", "pad=-1: give V"},
                 std::pair{"n=1 w=5 c=8 k=8 s=3 foo=2", "unknown key 'foo'; the keys are n, d, h, w, c, k, t, r, s, groups, pad"},
                 std::pair{"n=1 w=5 c=8", "k is missing (n, w, c and k have no default"},
                 std::pair{"n=1 w=5 c=8 k=8 s=3 s=3", "'s' is given twice"},
                 std::pair{"n=1 w=5 c=8 k=8 s=3 h", "'h' is not key=value"},
                 std::pair{"n=0 w=5 c=8 k=8 s=3", "n=0: must be a whole number of at least 1"},
                 std::pair{"n=1 w=5 c=8 k=8 s=3 pad=1 pad_after=1", "give pad, or pad_before and pad_after, not both"},
                 std::pair{"n=1 h=5 w=5 c=8 k=6 r=3 s=3 groups=4", "conv::Problem: groups = 4 must divide C = 8 and K = 6"},
                 std::pair{"n=1 w=5 c=8 k=8 s=9", "conv::Problem: the dilated filter (9) in width does not fit the padded input (5)"}},
                [&](char const* text) { return parse_conv_problem(text, p); });
}

TEST_CASE("convolution problem lists and files", "[profiler][cli][conv]") {
  std::vector<conv::Problem> v;
  REQUIRE(parse_conv_problems("n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1; n=32 h=28 w=28 c=128 k=128 r=3 s=3 pad=1;", v).ok());
  REQUIRE(v.size() == 2);
  CHECK(v[1].c == 128);
  CHECK_THAT(parse_conv_problems(" ; ", v).message(), Catch::Contains("--problems: no convolution given"));
  CHECK_THAT(parse_conv_problems("n=1 w=5 c=8 k=8 s=3; n=1 w=5", v).message(),
             Catch::Contains("--problems: convolution 'n=1 w=5': c is missing"));
  CHECK(v.size() == 2);  // untouched by the failures
  char const* path = "test_options_conv_problems.txt";
  {
    std::FILE* f = std::fopen(path, "w");
    REQUIRE(f != nullptr);
    std::fputs("# ResNet-50 conv2_x\nn=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1\nn=32 h=56 w=56 c=64 k=256  # 1x1 expand\n\n"
               "n=32 h=56 w=56 c=256 k=64; n=32 h=28 w=28 c=128 k=128 r=3 s=3 pad=1\n",
               f);
    std::fclose(f);
  }
  REQUIRE(parse_conv_problems(std::string("@") + path, v).ok());
  CHECK(v.size() == 4);
  CHECK((v[1].k == 256 && v[1].r == 1));
  std::remove(path);
  CHECK_THAT(parse_conv_problems("@no_such_file.txt", v).message(), Catch::Contains("cannot read no_such_file.txt"));
}

TEST_CASE("attention dtypes, masks and layouts, with the choices on error", "[profiler][cli][attention]") {
  ProblemTypes t;
  REQUIRE(parse_attention_dtype("fp16", t).ok());
  CHECK((t.a == gemm::Dtype::kF16 && t.name == "f16"));
  REQUIRE(parse_attention_dtype("fp8", t).ok());  // e4m3 Q, K and V, O in bf16
  CHECK((t.a == gemm::Dtype::kE4m3 && t.d == gemm::Dtype::kBf16 && t.name == "e4m3"));
  CHECK(parse_attention_dtype("tf32", t).message() ==
        "invalid argument: dtype 'tf32' has no attention kernels; the attention dtypes are bf16, f16 (fp16, half) and e4m3 (fp8: Q, K "
        "and V in e4m3, O in bf16)");
  CHECK_THAT(parse_attention_dtype("bf17", t).message(), Catch::StartsWith("invalid argument: unknown dtype 'bf17'; the attention dtypes"));

  AttentionMaskSetting m;
  for (auto [text, kind, left, right, back] :
       {std::tuple{"none", tuning::AttentionMask::kNone, -1, -1, "none"}, std::tuple{"causal", tuning::AttentionMask::kCausal, -1, -1, "causal"},
        std::tuple{"causal_tl", tuning::AttentionMask::kCausalTopLeft, -1, -1, "causal-tl"},
        std::tuple{"window:256,0", tuning::AttentionMask::kWindow, 256, 0, "window:256,0"},
        std::tuple{"window:-1,7", tuning::AttentionMask::kWindow, -1, 7, "window:-1,7"}}) {
    INFO(text);
    REQUIRE(parse_attention_mask(text, m).ok());
    CHECK((m.kind == kind && m.left == left && m.right == right));
    CHECK(attention_mask_text(m) == back);
  }
  for (auto [text, why] : {std::pair{"causl", "unknown mask 'causl'; the masks are none, causal (bottom-right aligned), causal-tl"},
                           std::pair{"window:5", "mask 'window:5': give window:L,R with L and R whole numbers (-1: unbounded)"},
                           std::pair{"window:-2,0", "give window:L,R"},
                           std::pair{"window:2000000000,0", "the bounds must be at most 2^30"}}) {
    INFO(text);
    CHECK_THAT(parse_attention_mask(text, m).message(), Catch::Contains(why));
  }
  CHECK((m.kind == tuning::AttentionMask::kWindow && m.right == 7));  // untouched by the failures

  attention::Layout l = attention::Layout::kBSHD;
  REQUIRE(parse_attention_layout("bhsd", l).ok());
  CHECK(l == attention::Layout::kBHSD);
  CHECK(parse_attention_layout("bsdh", l).message() ==
        "invalid argument: unknown attention layout 'bsdh'; the layouts are bshd ([batch][seq][head][dim]) and bhsd ([batch][head][seq][dim])");
}

TEST_CASE("an attention problem as key=value items, and back", "[profiler][cli][attention]") {
  AttentionShape a;
  REQUIRE(parse_attention_problem("batch=2 heads=16 heads_kv=4 sq=1024 sk=1024 dim=128 mask=causal", a).ok());
  CHECK((a.batch == 2 && a.heads == 16 && a.heads_kv == 4 && a.seqlen_q == 1024 && a.seqlen_k == 1024 && a.head_dim == 128 &&
         a.head_dim_v == 128 && a.mask.kind == tuning::AttentionMask::kCausal && a.layout == attention::Layout::kBSHD));
  CHECK(attention_problem_text(a) == "batch=2 heads=16 heads_kv=4 sq=1024 sk=1024 dim=128 mask=causal");
  attention::Problem const p = a.problem();
  CHECK((p.q.seq == 16 * 128 && p.k.seq == 4 * 128 && p.group() == 4));
  // Defaults: one batch entry, head and K/V head; dim_v = dim; no mask; BSHD. The window's comma
  // stays inside its item.
  REQUIRE(parse_attention_problem("sq=100 sk=300 dim=192 dim_v=128 mask=window:64,0 layout=bhsd", a).ok());
  CHECK((a.batch == 1 && a.heads == 1 && a.head_dim_v == 128 && a.mask.left == 64 && a.layout == attention::Layout::kBHSD));
  CHECK(attention_problem_text(a) == "batch=1 heads=1 heads_kv=1 sq=100 sk=300 dim=192 dim_v=128 mask=window:64,0 layout=bhsd");
  AttentionShape back;
  REQUIRE(parse_attention_problem(attention_problem_text(a), back).ok());
  CHECK(back == a);

  check_refused("attention",
                {std::pair{"sq=10 dim=128", "sk is missing (sq, sk and dim have no default"},
                 std::pair{"sq=10 sk=10 dim=128 heads=6 heads_kv=4", "attention: heads = 6 is not a multiple of heads_kv = 4"},
                 std::pair{"sq=10 sk=10 dim=100", "attention: head_dim = 100 is not a multiple of 8 from 8 to 256"},
                 std::pair{"sq=10 sk=10 dim=128 mask=causl", "unknown mask 'causl'"},
                 std::pair{"sq=10 sk=10 dim=128 seq=4",
                           "unknown key 'seq'; the keys are batch, heads, heads_kv, sq, sk, dim, dim_v, mask, layout, seqlens, seqlens_k"},
                 std::pair{"sq=0 sk=10 dim=128", "sq=0: must be a whole number of at least 1"},
                 std::pair{"sq=10 sk=10 dim=128 sq=3", "'sq' is given twice"}},
                [&](char const* text) { return parse_attention_problem(text, a); });

  std::vector<AttentionShape> v;
  REQUIRE(parse_attention_problems("sq=1024 sk=1024 dim=128 mask=causal; batch=4 heads=32 heads_kv=8 sq=4096 sk=4096 dim=64", v).ok());
  REQUIRE(v.size() == 2);
  CHECK((v[1].heads_kv == 8 && v[1].mask.kind == tuning::AttentionMask::kNone));
  CHECK_THAT(parse_attention_problems(" ; ", v).message(), Catch::Contains("--problems: no attention problem given"));
}

TEST_CASE("a packed batch of variable lengths as key=value items and flags, and back", "[profiler][cli][attention]") {
  AttentionShape a;
  // Empty and length-1 sequences; the keys' lengths the queries' unless given.
  REQUIRE(parse_attention_problem("heads=16 heads_kv=4 seqlens=512,1024,0,1,3000 dim=128 mask=causal", a).ok());
  CHECK((a.variable() && a.batch == 5 && a.seqlen_q == 3000 && a.seqlen_k == 3000 && a.seqlens_k == a.seqlens_q));
  CHECK((a.total_q() == 4537 && a.total_k() == 4537));
  CHECK(attention_problem_text(a) == "heads=16 heads_kv=4 seqlens=512,1024,0,1,3000 dim=128 mask=causal");
  AttentionShape back;
  REQUIRE(parse_attention_problem(attention_problem_text(a), back).ok());
  CHECK(back == a);
  // The problem with the device's offsets: packed BSHD token rows, the longest lengths, the totals.
  int const fake[2] = {0, 0};
  attention::Problem const p = a.problem(fake, fake);
  CHECK((p.variable() && p.batch == 5 && p.seqlen_q == 3000 && p.total_q == 4537 && p.q.batch == 0 && p.q.seq == 16 * 128));
  CHECK(attention::check(p).ok());
  CHECK_FALSE(a.problem().variable());  // without offsets: the checks' fixed-length view

  REQUIRE(parse_attention_problem("seqlens=7,0 seqlens_k=0,9 dim=64", a).ok());
  CHECK((a.batch == 2 && a.seqlen_q == 7 && a.seqlen_k == 9 && a.total_k() == 9));
  CHECK(attention_problem_text(a) == "heads=1 heads_kv=1 seqlens=7,0 seqlens_k=0,9 dim=64 mask=none");
  REQUIRE(parse_attention_problem(attention_problem_text(a), back).ok());
  CHECK(back == a);

  check_refused("attention",
                {std::pair{"seqlens=5,6 sq=6 dim=64", "seqlens gives the batch and its lengths (sq and sk are the longest); leave out batch, sq and sk"},
                 std::pair{"batch=2 seqlens=5,6 dim=64", "seqlens gives the batch and its lengths"},
                 std::pair{"seqlens=5,6 seqlens_k=5 dim=64", "variable lengths: the keys' lengths (1) are not one per sequence (2); give as many as the queries'"},
                 std::pair{"seqlens=0,0 dim=64", "variable lengths: every sequence of queries is empty; give at least one length above 0"},
                 std::pair{"seqlens=5,-1 dim=64", "seqlens '5,-1': '-1' is not a whole number of at least 0; give each sequence's length"},
                 std::pair{"seqlens=5,,6 dim=64", "seqlens '5,,6': '' is not a whole number of at least 0"},
                 std::pair{"seqlens=5 dim=64 layout=bhsd", "variable lengths: a packed batch's tokens are BSHD rows"},
                 std::pair{"sq=5 sk=5 seqlens_k=5 dim=64", "seqlens_k gives the keys' lengths of a packed batch; give seqlens (the queries') too"},
                 std::pair{"seqlens=5", "dim is missing"}},
                [&](char const* text) { return parse_attention_problem(text, a); });

  std::vector<int> v;
  REQUIRE(parse_seqlens("--seqlens", "512,1024,0,1,3000", v).ok());
  CHECK(v == std::vector<int>{512, 1024, 0, 1, 3000});
  CHECK(parse_seqlens("--seqlens", "4:8:2", v).message() ==
        "invalid argument: --seqlens '4:8:2': '4:8:2' is not a whole number of at least 0; give each sequence's length, comma-separated, 0 "
        "for an empty one (e.g. 512,1024,0,1,3000)");
  AttentionShape s;
  CHECK_THAT(set_seqlens(s, {}, {}).message(), Catch::Contains("variable lengths: no sequence given"));
  CHECK_THAT(set_seqlens(s, {1 << 30, 1 << 30}, {}).message(), Catch::Contains("2^31 tokens or more"));
  CHECK_FALSE(s.variable());  // untouched by the failures
}

TEST_CASE("attention's work: FlashAttention's count, the pairs a mask keeps", "[profiler][cli][attention]") {
  AttentionShape a;
  REQUIRE(parse_attention_problem("batch=2 heads=16 sq=1024 sk=1024 dim=128", a).ok());
  CHECK(a.flops() == 4.0 * 2 * 16 * 1024 * 1024 * 128);
  a.mask.kind = tuning::AttentionMask::kCausal;
  CHECK(a.flops() == 4.0 * 2 * 16 * 1024 * 1024 * 128 / 2);  // halved, FlashAttention's convention
  CHECK(a.visible_pairs() == 1024.0 * 1025 / 2);              // the exact count
  // sq != sk: the pairs counted. Bottom-right: the last query sees every key; top-left: query q sees q + 1.
  REQUIRE(parse_attention_problem("sq=3 sk=5 dim=64 mask=causal", a).ok());
  CHECK(a.visible_pairs() == 3 + 4 + 5);
  REQUIRE(parse_attention_problem("sq=3 sk=5 dim=64 mask=causal-tl", a).ok());
  CHECK(a.visible_pairs() == 1 + 2 + 3);
  REQUIRE(parse_attention_problem("sq=5 sk=3 dim=64 mask=causal", a).ok());
  CHECK(a.visible_pairs() == 0 + 0 + 1 + 2 + 3);  // the first two queries see no key
  // A window of 2 before and 1 after the aligned position.
  REQUIRE(parse_attention_problem("sq=6 sk=6 dim=64 mask=window:2,1", a).ok());
  CHECK(a.visible_pairs() == 2 + 3 + 4 + 4 + 4 + 3);
  CHECK(a.flops() == 2.0 * 128 * a.visible_pairs());
  CHECK(a.bytes(2) == (6.0 * 64 * 4) * 2 + 6.0 * 4);
  CHECK(a.bytes(1, 2) == 6.0 * 64 * 3 + 6.0 * 64 * 2 + 6.0 * 4);  // fp8: Q, K and V in a byte, O in two
  // A packed batch: each sequence's own pairs (causal: half of a square one, FlashAttention's
  // count; bottom-right on 3 queries and 5 keys as above); an empty sequence adds nothing.
  REQUIRE(parse_attention_problem("heads=2 seqlens=4,0,1,3 seqlens_k=4,6,1,5 dim=64 mask=causal", a).ok());
  CHECK(a.visible_pairs() == (1 + 2 + 3 + 4) + 0 + 1 + (3 + 4 + 5));
  CHECK(a.flops() == 2.0 * 128 * 2 * (4.0 * 4 / 2 + 0 + 1.0 / 2 + (3 + 4 + 5)));
  CHECK(a.bytes(2) == (8.0 * 2 * 64 + 16.0 * 1 * 64 * 2 + 8.0 * 2 * 64) * 2 + 8.0 * 2 * 4);  // one K/V head
}
