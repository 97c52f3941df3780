// Results as CSV and JSON, written and read back unchanged; the terminal table's order.
#include <catch2/catch.hpp>

#include "report.hpp"

using namespace tessera;
using namespace tessera::profiler;

namespace {
Report sample() {
  Report r;
  r.device = "NVIDIA H100 80GB HBM3";
  r.date = "2026-11-21";
  Result a;
  a.kernel = "sm90_bf16_tn_128x256x64_2wg_coop_s4";
  a.dtype = "bf16";
  a.layout = "tn";
  a.epilogue = "bias_gelu";
  a.m = 4096;
  a.n = 14336;
  a.k = 4096;
  a.outcome = Outcome::kPassed;
  a.time_us = 1.0 / 3.0 * 1000;  // not a short decimal: the text must keep every bit
  a.predicted_us = 312.5;
  a.error_ratio = 0.0123;
  Result b = a;
  b.kernel = "sm90_bf16_tn_64x32x64_1wg_coop_s12_swap";
  b.outcome = Outcome::kSkipped;
  b.time_us = 0;
  b.message = "not supported: swap_ab exchanges A and B, \"both K-major\", or swap_ab = false";
  Result c = a;
  c.kernel = "sm80_bf16_tn_128x128x32_2x2w_s3";
  c.outcome = Outcome::kWrong;
  c.time_us = 0;
  c.batch = 3;
  c.error_ratio = 1e30;
  c.message = "12 of 100 elements differ";
  Result d = a;
  d.kernel = "sm90_bf16_tn_128x128x64_2wg_pingpong_s4";
  d.time_us = 500.0;
  r.results = {a, b, c, d};
  return r;
}
}  // namespace

TEST_CASE("CSV round trip", "[profiler][report]") {
  Report const r = sample();
  std::string const csv = to_csv(r);
  CHECK_THAT(csv, Catch::StartsWith("# device: NVIDIA H100 80GB HBM3\n# date: 2026-11-21\nkernel,dtype,layout,"));
  CHECK_THAT(csv, Catch::Contains("\"not supported: swap_ab exchanges A and B, \"\"both K-major\"\", or swap_ab = false\""));
  Report back;
  REQUIRE(from_csv(csv, back).ok());
  CHECK(back == r);
  Status const s = from_csv("kernel,m\nx,1\n", back);
  CHECK_THAT(s.message(), Catch::Contains("expected the header"));
  CHECK_THAT(from_csv("", back).message(), Catch::Contains("no CSV header"));
}

TEST_CASE("JSON round trip", "[profiler][report]") {
  Report const r = sample();
  Report back;
  REQUIRE(from_json(to_json(r), back).ok());
  CHECK(back == r);
  CHECK_THAT(from_json("{\"results\": []}", back).message(), Catch::Contains("not a tessera-profile --json file"));
  CHECK_THAT(from_json("{", back).message(), Catch::Contains("JSON"));
}

TEST_CASE("derived rates", "[profiler][report]") {
  Result r;
  r.dtype = "bf16";
  r.m = r.n = r.k = 4096;
  r.time_us = 200;
  CHECK(r.tflops() == Approx(2.0 * 4096.0 * 4096 * 4096 / 200e-6 * 1e-12));
  CHECK(r.gbps() == Approx(3.0 * 4096 * 4096 * 2 / 200e-6 * 1e-9));
  r.time_us = 0;
  CHECK(r.tflops() == 0);
}

TEST_CASE("the table lists passed results fastest first, then the others with their reasons", "[profiler][report]") {
  std::string const t = format_table(sample().results);
  std::size_t const fast = t.find("sm90_bf16_tn_128x256x64_2wg_coop_s4"), slow = t.find("sm90_bf16_tn_128x128x64_2wg_pingpong_s4"),
                    skipped = t.find("_swap"), wrong = t.find("sm80_bf16");
  CHECK(fast < slow);
  CHECK(slow < skipped);
  CHECK(slow < wrong);
  CHECK_THAT(t, Catch::Contains("wrong: 12 of 100 elements differ"));
  CHECK_THAT(t, Catch::Contains("   1  sm90_bf16_tn_128x256x64_2wg_coop_s4"));
  CHECK_THAT(t, Catch::Contains("1.500"));  // 500 us against the best 333.3 us
}

TEST_CASE("with a baseline's time the table gives each row's speed relative to it", "[profiler][report]") {
  std::vector<Result> rows = sample().results;
  Result cublas = rows.front();
  cublas.kernel = kCublasName;
  cublas.outcome = Outcome::kPassed;
  cublas.time_us = 400.0;
  rows.push_back(cublas);
  std::string const t = format_table(rows, 400.0);
  CHECK_THAT(t, Catch::Contains("vs cuBLAS"));
  CHECK_THAT(t, Catch::Contains("1.200"));  // 400 us against the best 333.3 us: 1.2x cuBLAS's speed
  CHECK_THAT(t, Catch::Contains("0.800"));  // 400 us against 500 us
  CHECK_THAT(format_table(sample().results), !Catch::Contains("vs cuBLAS"));
}
