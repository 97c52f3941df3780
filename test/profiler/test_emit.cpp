// `emit`: the fastest passed configuration per problem, one table per dtype, layout and epilogue,
// each entry the spec as C++; failures and slower results left out; clear errors.
#include <catch2/catch.hpp>

#include "emit.hpp"
#include "report.hpp"

using namespace tessera;
using namespace tessera::profiler;

namespace {
Report load_sample() {
  std::string text;
  REQUIRE(read_file(TESSERA_PROFILER_SAMPLE, text).ok());
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
