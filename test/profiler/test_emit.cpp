// `emit`: the fastest passed configuration per problem, one table per dtype, layout and epilogue
// (a convolution's: per dtype and direction; attention's: per dtype, head dims and mask), each
// entry the spec as C++; failures and slower results left out; clear errors.
#include <catch2/catch.hpp>

#include "emit.hpp"
#include "report.hpp"

using namespace tessera;
using namespace tessera::profiler;

namespace {
Report load_sample(char const* path = TESSERA_PROFILER_SAMPLE) {
  std::string text;
  REQUIRE(read_file(path, text).ok());
  Report r;
  REQUIRE(from_json(text, r).ok());
  return r;
}
}  // namespace

TEST_CASE("emit writes the winners per problem as TunedTables", "[profiler][emit]") {
  Report const r = load_sample();
  std::string h;
  REQUIRE(emit_header(r, {"my_tuned"}, h).ok());
  CHECK_THAT(h, Catch::Contains("#include \"tessera/gemm/tuned.hpp\""));
  CHECK_THAT(h, Catch::Contains("namespace my_tuned {"));
  CHECK_THAT(h, Catch::Contains("measured on Test GPU on 2026-11-21"));
  CHECK_THAT(h, Catch::Contains("inline constexpr tessera::gemm::TunedTable<3> bf16_tn{{"));
  CHECK_THAT(h, Catch::Contains("inline constexpr tessera::gemm::TunedTable<1> f16_tn_bias_gelu{{"));
  // M = 1: the swapped 64 x 128 won (23.5 us); the wrong 128 x 256 and the slower unswapped are out.
  CHECK_THAT(h, Catch::Contains("    // sm90_bf16_tn_64x128x64_1wg_coop_s4_swap\n    {1, 4096, 4096, {"));
  CHECK_THAT(h, Catch::Contains(".stages = 4}, true, 23.50},\n"));
  CHECK_THAT(h, Catch::Contains("    // sm90_bf16_tn_128x256x64_2wg_coop_s4\n    {4096, 4096, 4096, {"));
  CHECK_THAT(h, Catch::Contains("false, 190.00},\n"));
  CHECK_THAT(h, !Catch::Contains("26.00") && !Catch::Contains("201.00"));
  CHECK_THAT(h, Catch::Contains("{1, 4096, 4096, {.arch_cc = 90,"));
  CHECK_THAT(h, Catch::Contains(".bm = 64, .bn = 128, .bk = 64"));
}

TEST_CASE("emit leaves out the cuBLASLt rows of --compare cublas, however fast", "[profiler][emit]") {
  Report r = load_sample();
  Result cublas = r.results.front();
  cublas.kernel = kCublasName;
  cublas.outcome = Outcome::kPassed;
  cublas.time_us = 1.0;
  r.results.push_back(cublas);
  std::string h;
  REQUIRE(emit_header(r, {"my_tuned"}, h).ok());
  CHECK_THAT(h, !Catch::Contains("cublas"));
  CHECK_THAT(h, Catch::Contains(".stages = 4}, true, 23.50},\n"));
}

TEST_CASE("emit refuses results without a winner or with unknown configurations", "[profiler][emit]") {
  Report r = load_sample();
  std::string h;
  Report none = r;
  for (auto& x : none.results) x.outcome = Outcome::kSkipped;
  CHECK_THAT(emit_header(none, {}, h).message(), Catch::Contains("no passed configuration"));
  r.results[0].kernel = "sm90_bf16_tn_96x96x64_1wg_coop_s4";
  CHECK_THAT(emit_header(r, {}, h).message(), Catch::Contains("'sm90_bf16_tn_96x96x64_1wg_coop_s4'") && Catch::Contains("profile again"));
  CHECK(table_name(r.results[6]) == "f16_tn_bias_gelu");
}

TEST_CASE("emit writes the convolution winners per problem as conv::TunedTables", "[profiler][emit][conv]") {
  Report const r = load_sample(TESSERA_PROFILER_CONV_SAMPLE);
  std::string h;
  REQUIRE(emit_header(r, {"my_convs"}, h).ok());
  CHECK_THAT(h, Catch::Contains("#include \"tessera/conv/tuned.hpp\"") && !Catch::Contains("gemm/tuned.hpp"));
  CHECK_THAT(h, Catch::Contains("fastest verified convolution configuration per profiled problem") &&
                    Catch::Contains("tessera::conv::Tuned<my_convs::<table>, YourEpilogue>"));
  CHECK_THAT(h, Catch::Contains("inline constexpr tessera::conv::TunedTable<3> bf16_fprop{{"));
  CHECK_THAT(h, Catch::Contains("inline constexpr tessera::conv::TunedTable<1> bf16_wgrad{{"));
  // Each problem's fastest: the wrong 128 x 256 and the slower ones are left out.
  CHECK_THAT(h, Catch::Contains("    // sm90_bf16_fprop_128x64x64_2wg_coop_s8: n=2 h=20 w=20 c=64 k=64 r=3 s=3 pad=1\n"
                                "    {{.n = 2, .d = 1, .h = 20, .w = 20, .c = 64, .k = 64, .t = 1, .r = 3, .s = 3, .pad_before = {0, 1, 1}, "
                                ".pad_after = {0, 1, 1}, .stride = {1, 1, 1}, .dilation = {1, 1, 1}, .groups = 1},\n"
                                "     {.direction = tessera::conv::Direction::kFprop, .gemm = {.arch_cc = 90,"));
  CHECK_THAT(h, Catch::Contains(".stages = 8}},\n     9.50},\n"));
  CHECK_THAT(h, Catch::Contains("// sm80_bf16_fprop_128x128x32_2x2w_s4: n=2 h=10 w=10 c=40 k=48\n"));
  CHECK_THAT(h, Catch::Contains("// sm90_bf16_wgrad_128x256x64_2wg_coop_s4: n=2 h=20 w=20 c=64 k=64 r=3 s=3 pad=1\n"));
  CHECK_THAT(h, !Catch::Contains("10.25") && !Catch::Contains("14.00") && !Catch::Contains("sm90_bf16_fprop_128x256x64"));
  // The problems in the order of their text.
  CHECK(h.find("h=10 w=10") < h.find("h=12 w=12"));
  CHECK(h.find("h=12 w=12") < h.find("h=20 w=20"));
  CHECK(table_name(r.results[0]) == "bf16_fprop");
  CHECK(table_name(r.results.back()) == "bf16_wgrad");
}

TEST_CASE("emit writes GEMM and convolution tables into one header", "[profiler][emit][conv]") {
  Report r = load_sample();
  for (Result const& x : load_sample(TESSERA_PROFILER_CONV_SAMPLE).results) r.results.push_back(x);
  std::string h;
  REQUIRE(emit_header(r, {"both"}, h).ok());
  CHECK_THAT(h, Catch::Contains("#include \"tessera/gemm/tuned.hpp\"\n#include \"tessera/conv/tuned.hpp\"\n"));
  CHECK_THAT(h, Catch::Contains("GEMM and convolution configuration") && Catch::Contains("tessera::gemm::Tuned<both::<table>") &&
                    Catch::Contains("tessera::conv::Tuned<both::<table>"));
  CHECK_THAT(h, Catch::Contains("TunedTable<3> bf16_tn{{") && Catch::Contains("TunedTable<3> bf16_fprop{{"));
}

TEST_CASE("emit refuses convolution results of unknown configurations or problems", "[profiler][emit][conv]") {
  Report r = load_sample(TESSERA_PROFILER_CONV_SAMPLE);
  std::string h;
  Report unknown = r;
  unknown.results[0].kernel = "sm90_bf16_fprop_96x96x64_2wg_coop_s4";
  CHECK_THAT(emit_header(unknown, {}, h).message(), Catch::Contains("'sm90_bf16_fprop_96x96x64_2wg_coop_s4'") && Catch::Contains("profile again"));
  Report invalid = r;
  invalid.results[0].kernel = "sm90_bf16_fprop_128x256x64_2wg_coop_s8";  // in the space, but dropped
  CHECK_THAT(emit_header(invalid, {}, h).message(), Catch::Contains("'sm90_bf16_fprop_128x256x64_2wg_coop_s8'"));
  Report bad = r;
  bad.results[0].problem = "n=2 h=20";
  CHECK_THAT(emit_header(bad, {}, h).message(), Catch::Contains("a result's problem: convolution 'n=2 h=20': w is missing"));
}

TEST_CASE("emit writes the attention winners per problem as attention::TunedTables", "[profiler][emit][attention]") {
  Report const r = load_sample(TESSERA_PROFILER_ATTENTION_SAMPLE);
  std::string h;
  REQUIRE(emit_header(r, {"my_attention"}, h).ok());
  CHECK_THAT(h, Catch::Contains("#include \"tessera/attention/tuned.hpp\"") && !Catch::Contains("gemm/tuned.hpp") &&
                    !Catch::Contains("conv/tuned.hpp"));
  CHECK_THAT(h, Catch::Contains("fastest verified attention configuration per profiled problem") &&
                    Catch::Contains("tessera::attention::Tuned<my_attention::<table>, YourChain>"));
  CHECK_THAT(h, Catch::Contains("// bf16 head dims 128 / 128, profiled with mask causal: 3 problem(s)\n"
                                "inline constexpr tessera::attention::TunedTable<3> bf16_hd128_causal{{\n"));
  // The packed batch of variable lengths beside the fixed problem, by its longest sequences, marked
  // `true`; the sm80 kernel skipped it (variable lengths), and lost the fixed one to the Hopper kernel.
  CHECK_THAT(h, Catch::Contains("inline constexpr tessera::attention::TunedTable<2> bf16_hd128_none{{"));
  CHECK_THAT(h, Catch::Contains("    // sm90_bf16_hd128_128x128_2wg_s2_none: heads=8 heads_kv=2 seqlens=500,0,1,130 dim=128 mask=none\n"
                                "    {{4, 8, 2, 500, 500, true}, {.arch_cc = 90, "));
  CHECK_THAT(h, Catch::Contains("    {{2, 16, 4, 1024, 1024}, {.arch_cc = 90, .element = tessera::gemm::Dtype::kBf16, .head_dim = 128, "
                                ".head_dim_v = 128, .bq = 128, .bkv = 128, .consumers = 2, .turns = false, .stages = 2}, 150.00},\n"));
  // The sm80 kernel's winners, a table of their own.
  CHECK_THAT(h, Catch::Contains("// bf16 head dims 128 / 128, profiled with mask none, the sm80 kernel's winners (any GPU from sm_80: builds "
                                "without sm_90a): 1 problem(s)\ninline constexpr tessera::attention::TunedTable<1> bf16_hd128_none_sm80{{\n"
                                "    // sm80_bf16_hd128_64x64_4w_s2_none: batch=2 heads=16 heads_kv=4 sq=1024 sk=1024 dim=128 mask=none\n"
                                "    {{2, 16, 4, 1024, 1024}, {.arch_cc = 80, .element = tessera::gemm::Dtype::kBf16, .head_dim = 128, "
                                ".head_dim_v = 128, .bq = 64, .bkv = 64, .consumers = 0, .turns = false, .warps = 4, .stages = 2}, 310.00},\n"
                                "}};\n"));
  // fp8: a table of its own type.
  CHECK_THAT(h, Catch::Contains("// e4m3 head dims 128 / 128 (O in bf16; pass the per-tensor scales), profiled with mask causal: 1 problem(s)\n"
                                "inline constexpr tessera::attention::TunedTable<1> e4m3_hd128_causal{{\n"
                                "    // sm90_e4m3_hd128_128x128_2wg_s2_causal: batch=2 heads=16 heads_kv=4 sq=1024 sk=1024 dim=128 mask=causal\n"
                                "    {{2, 16, 4, 1024, 1024}, {.arch_cc = 90, .element = tessera::gemm::Dtype::kE4m3, "));
  CHECK_THAT(h, Catch::Contains("// bf16 head dims 128 / 128, profiled with mask window:256,0: 1 problem(s)\n"
                                "inline constexpr tessera::attention::TunedTable<1> bf16_hd128_window{{"));
  // Each problem's fastest passed one (the wrong 128 x 128 of the third left out), its shape, spec and time.
  CHECK_THAT(h, Catch::Contains("    // sm90_bf16_hd128_128x64_2wg_s2_causal: batch=1 heads=8 heads_kv=8 sq=300 sk=300 dim=128 mask=causal\n"
                                "    {{1, 8, 8, 300, 300}, {.arch_cc = 90, .element = tessera::gemm::Dtype::kBf16, .head_dim = 128, "
                                ".head_dim_v = 128, .bq = 128, .bkv = 64, .consumers = 2, .turns = false, .stages = 2}, 20.50},\n"));
  CHECK_THAT(h, Catch::Contains("    // sm90_bf16_hd128_128x128_2wg_s2_causal: batch=2 heads=16") && Catch::Contains(", 90.00},\n"));
  CHECK_THAT(h, Catch::Contains("    // sm90_bf16_hd128_128x64_2wg_s2_causal: batch=4 heads=32") && Catch::Contains(", 2000.00},\n"));
  CHECK_THAT(h, !Catch::Contains("100.00") && !Catch::Contains("22.00"));
  // The problems in the order of their text.
  CHECK(h.find("batch=1 heads=8 heads_kv=8") < h.find("batch=2 heads=16 heads_kv=4 sq=1024 sk=1024 dim=128 mask=causal"));
  CHECK(table_name(r.results[0]) == "bf16_hd128_causal");
  CHECK(table_name(r.results[8]) == "bf16_hd128_window");
  CHECK(table_name(r.results.back()) == "e4m3_hd128_causal");
  Result other = r.results[0];
  other.problem = "batch=1 sq=8 sk=8 dim=192 dim_v=128 mask=causal-tl";
  other.dtype = "f16";
  CHECK(table_name(other) == "f16_hd192x128_causal_tl");
}

TEST_CASE("emit writes GEMM, convolution and attention tables into one header; refuses unknown attention kernels",
          "[profiler][emit][attention]") {
  Report r = load_sample();
  for (char const* path : {TESSERA_PROFILER_CONV_SAMPLE, TESSERA_PROFILER_ATTENTION_SAMPLE})
    for (Result const& x : load_sample(path).results) r.results.push_back(x);
  std::string h;
  REQUIRE(emit_header(r, {"all"}, h).ok());
  CHECK_THAT(h, Catch::Contains("#include \"tessera/gemm/tuned.hpp\"\n#include \"tessera/conv/tuned.hpp\"\n"
                                "#include \"tessera/attention/tuned.hpp\"\n"));
  CHECK_THAT(h, Catch::Contains("GEMM, convolution and attention configuration"));
  Report unknown = load_sample(TESSERA_PROFILER_ATTENTION_SAMPLE);
  unknown.results[0].kernel = "sm90_bf16_hd128_128x96_2wg_s2_causal";
  CHECK_THAT(emit_header(unknown, {}, h).message(), Catch::Contains("'sm90_bf16_hd128_128x96_2wg_s2_causal'") && Catch::Contains("profile again"));
  Report invalid = load_sample(TESSERA_PROFILER_ATTENTION_SAMPLE);
  invalid.results[0].kernel = "sm90_bf16_hd256_128x192_2wg_s3_causal";  // in the wide space, but dropped (shared memory)
  CHECK_THAT(emit_header(invalid, {}, h).message(), Catch::Contains("'sm90_bf16_hd256_128x192_2wg_s3_causal'"));
}
