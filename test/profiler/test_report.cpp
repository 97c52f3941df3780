// Results as CSV and JSON, written and read back unchanged (convolution and attention rows too;
// files from before convolutions still read); the terminal table's order.
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

// A convolution row: its direction and problem; m, n, k and batch its implicit GEMM's.
Result conv_row() {
  Result x;
  x.kernel = "sm90_bf16_wgrad_128x256x64_2wg_coop_s4";
  x.operation = "conv";
  x.dtype = "bf16";
  x.epilogue = "none";
  x.direction = "wgrad";
  x.problem = "n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1";
  x.m = 64;
  x.n = 576;
  x.k = 32 * 56 * 56;
  x.batch = 1;
  x.outcome = Outcome::kPassed;
  x.time_us = 123.456789;
  x.predicted_us = 100.25;
  x.error_ratio = 0.5;
  return x;
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

TEST_CASE("convolution rows round-trip through CSV and JSON; older GEMM files still read", "[profiler][report][conv]") {
  Report r = sample();
  r.results.push_back(conv_row());
  Result skipped = conv_row();
  skipped.outcome = Outcome::kSkipped;
  skipped.message = "not supported: conv::Conv: C / groups = 40 is not a multiple of BlockTile K = 64, \"pad\" them";
  r.results.push_back(skipped);
  Report back;
  std::string const csv = to_csv(r);
  CHECK_THAT(csv, Catch::Contains(",message,operation,direction,problem\n"));
  CHECK_THAT(csv, Catch::Contains(",conv,wgrad,n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1\n"));
  REQUIRE(from_csv(csv, back).ok());
  CHECK(back == r);
  REQUIRE(from_json(to_json(r), back).ok());
  CHECK(back == r);
  CHECK_THAT(to_json(r), Catch::Contains("\"operation\": \"conv\"") && Catch::Contains("\"direction\": \"wgrad\""));
  // A CSV file written before convolutions: 15 fields, GEMM rows.
  std::string const old = "kernel,dtype,layout,epilogue,m,n,k,batch,outcome,time_us,tflops,gbps,predicted_us,error_ratio,message\n"
                          "sm90_bf16_tn_128x256x64_2wg_coop_s4,bf16,tn,none,16,4096,4096,1,passed,23.5,0,0,20,0.01,\n";
  REQUIRE(from_csv(old, back).ok());
  REQUIRE(back.results.size() == 1);
  CHECK((back.results[0].operation == "gemm" && !back.results[0].conv() && back.results[0].time_us == 23.5));
  CHECK_THAT(from_csv(old + "x,bf16,tn,none,1,1,1,1,passed,1,0,0,1,0,,conv,fprop,n=1\n", back).message(),
             Catch::Contains("15 fields expected, 18 found"));
  // A JSON file written before convolutions: no "operation".
  REQUIRE(from_json("{\"tool\": \"tessera-profile\", \"results\": [{\"kernel\": \"k\", \"dtype\": \"bf16\", \"layout\": \"tn\", "
                    "\"epilogue\": \"none\", \"m\": 1, \"n\": 2, \"k\": 3, \"batch\": 1, \"outcome\": \"passed\", \"time_us\": 1.0, "
                    "\"predicted_us\": 1.0, \"error_ratio\": 0.0, \"message\": \"\"}]}",
                    back)
              .ok());
  CHECK((back.results.size() == 1 && back.results[0].operation == "gemm"));
}

TEST_CASE("a convolution's rates: its multiply-adds, and its three tensors once", "[profiler][report][conv]") {
  Result const x = conv_row();
  double const macs = 32.0 * 56 * 56 * 64 * 576;
  CHECK(x.tflops() == Approx(2.0 * macs / (x.time_us * 1e-6) * 1e-12));
  double const bytes = 2.0 * (32.0 * 56 * 56 * 64 * 2 + 64.0 * 576);  // x and y, w
  CHECK(x.gbps() == Approx(bytes / (x.time_us * 1e-6) * 1e-9));
  Result bad = x;
  bad.problem = "n=1";
  CHECK(bad.gbps() == 0);
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
