#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "options.hpp"

namespace tessera::profiler {

char const* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kPassed: return "passed";
    case Outcome::kWrong: return "wrong";
    case Outcome::kSkipped: return "skipped";
    default: return "error";
  }
}

bool parse_outcome(std::string const& s, Outcome& o) {
  for (Outcome c : {Outcome::kPassed, Outcome::kWrong, Outcome::kSkipped, Outcome::kError})
    if (s == outcome_name(c)) {
      o = c;
      return true;
    }
  return false;
}

double Result::tflops() const {
  if (time_us <= 0) return 0.0;
  if (attention()) {
    AttentionShape a;
    return parse_attention_problem(problem, a).ok() ? a.flops() / (time_us * 1e6) : 0.0;
  }
  return 2.0 * m * n * double(k) * batch / (time_us * 1e6);
}

double Result::gbps() const {
  ProblemTypes t;
  if (time_us <= 0 || !parse_dtype(dtype, t).ok()) return 0.0;
  if (attention()) {
    AttentionShape a;
    return parse_attention_problem(problem, a).ok() ? a.bytes(gemm::dtype_bytes(t.a), gemm::dtype_bytes(t.d)) / (time_us * 1e3) : 0.0;
  }
  if (conv()) {
    conv::Problem p;
    if (!parse_conv_problem(problem, p)) return 0.0;
    return double(p.input_elements() + p.filter_elements() + p.output_elements()) * gemm::dtype_bytes(t.a) / (time_us * 1e3);
  }
  double const bytes = double(batch) * (double(m) * k * gemm::dtype_bytes(t.a) + double(n) * k * gemm::dtype_bytes(t.b) +
                                        double(m) * n * gemm::dtype_bytes(t.d));
  return bytes / (time_us * 1e3);
}

namespace {
// CSV fields: quoted when they hold a comma, a quote or a line break (RFC 4180).
std::string csv_field(std::string const& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::vector<std::string> csv_split(std::string const& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char const c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// Files before convolutions (GEMM rows only) end after `message`; they read as before.
constexpr char const* kCsvHeaderGemm = "kernel,dtype,layout,epilogue,m,n,k,batch,outcome,time_us,tflops,gbps,predicted_us,error_ratio,message";
constexpr char const* kCsvHeader =
    "kernel,dtype,layout,epilogue,m,n,k,batch,outcome,time_us,tflops,gbps,predicted_us,error_ratio,message,operation,direction,problem";

// %.17g keeps every double's value through the text.
std::string num(double v) { return fmt::format("{:.17g}", v); }
}  // namespace

std::string to_csv(Report const& r) {
  std::string s = fmt::format("# device: {}\n# date: {}\n{}\n", r.device, r.date, kCsvHeader);
  for (Result const& x : r.results)
    s += fmt::format("{},{},{},{},{},{},{},{},{},{},{:.3f},{:.1f},{},{},{},{},{},{}\n", csv_field(x.kernel), x.dtype, x.layout, x.epilogue,
                     x.m, x.n, x.k, x.batch, outcome_name(x.outcome), num(x.time_us), x.tflops(), x.gbps(), num(x.predicted_us),
                     num(x.error_ratio), csv_field(x.message), x.operation, x.direction, csv_field(x.problem));
  return s;
}

Status from_csv(std::string const& text, Report& out) {
  Report r;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  bool header = false;
  std::size_t fields = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    if (line.rfind("# device: ", 0) == 0) {
      r.device = line.substr(10);
      continue;
    }
    if (line.rfind("# date: ", 0) == 0) {
      r.date = line.substr(8);
      continue;
    }
    if (!header) {
      if (line != kCsvHeader && line != kCsvHeaderGemm)
        return Status::invalid_argument("CSV line " + std::to_string(line_no) + ": expected the header '" + kCsvHeader + "'");
      fields = line == kCsvHeader ? 18 : 15;
      header = true;
      continue;
    }
    auto const f = csv_split(line);
    if (f.size() != fields)
      return Status::invalid_argument("CSV line " + std::to_string(line_no) + ": " + std::to_string(fields) + " fields expected, " +
                                      std::to_string(f.size()) + " found");
    Result x;
    try {
      x.kernel = f[0];
      x.dtype = f[1];
      x.layout = f[2];
      x.epilogue = f[3];
      x.m = std::stoi(f[4]);
      x.n = std::stoi(f[5]);
      x.k = std::stoi(f[6]);
      x.batch = std::stoi(f[7]);
      x.time_us = std::stod(f[9]);
      x.predicted_us = std::stod(f[12]);
      x.error_ratio = std::stod(f[13]);
    } catch (std::exception const&) {
      return Status::invalid_argument("CSV line " + std::to_string(line_no) + ": a number field does not parse");
    }
    if (!parse_outcome(f[8], x.outcome)) return Status::invalid_argument("CSV line " + std::to_string(line_no) + ": unknown outcome '" + f[8] + "'");
    x.message = f[14];
    if (fields == 18) {
      x.operation = f[15];
      x.direction = f[16];
      x.problem = f[17];
    }
    r.results.push_back(std::move(x));
  }
  if (!header) return Status::invalid_argument("no CSV header: is this a tessera-profile --csv file?");
  out = std::move(r);
  return Status::success();
}

std::string to_json(Report const& r) {
  nlohmann::json j;
  j["tool"] = "tessera-profile";
  j["device"] = r.device;
  j["date"] = r.date;
  j["results"] = nlohmann::json::array();
  for (Result const& x : r.results) {
    nlohmann::json e = {{"kernel", x.kernel}, {"dtype", x.dtype}, {"layout", x.layout}, {"epilogue", x.epilogue}, {"m", x.m},
                        {"n", x.n}, {"k", x.k}, {"batch", x.batch}, {"outcome", outcome_name(x.outcome)},
                        {"time_us", x.time_us}, {"tflops", x.tflops()}, {"gbps", x.gbps()}, {"predicted_us", x.predicted_us},
                        {"error_ratio", x.error_ratio}, {"message", x.message}, {"operation", x.operation}};
    if (x.conv()) e["direction"] = x.direction;
    if (x.conv() || x.attention()) e["problem"] = x.problem;
    j["results"].push_back(std::move(e));
  }
  return j.dump(2) + "\n";
}

Status from_json(std::string const& text, Report& out) {
  try {
    auto const j = nlohmann::json::parse(text);
    if (j.value("tool", "") != "tessera-profile") return Status::invalid_argument("not a tessera-profile --json file (no \"tool\": \"tessera-profile\")");
    Report r;
    r.device = j.value("device", "");
    r.date = j.value("date", "");
    for (auto const& e : j.at("results")) {
      Result x;
      x.kernel = e.at("kernel").get<std::string>();
      x.dtype = e.at("dtype").get<std::string>();
      x.layout = e.at("layout").get<std::string>();
      x.epilogue = e.at("epilogue").get<std::string>();
      x.m = e.at("m").get<int>();
      x.n = e.at("n").get<int>();
      x.k = e.at("k").get<int>();
      x.batch = e.at("batch").get<int>();
      if (!parse_outcome(e.at("outcome").get<std::string>(), x.outcome))
        return Status::invalid_argument("unknown outcome '" + e.at("outcome").get<std::string>() + "'");
      x.time_us = e.at("time_us").get<double>();
      x.predicted_us = e.at("predicted_us").get<double>();
      x.error_ratio = e.at("error_ratio").get<double>();
      x.message = e.at("message").get<std::string>();
      x.operation = e.value("operation", "gemm");  // (files before convolutions: GEMM rows)
      x.direction = e.value("direction", "");
      x.problem = e.value("problem", "");
      r.results.push_back(std::move(x));
    }
    out = std::move(r);
    return Status::success();
  } catch (nlohmann::json::exception const& e) {
    return Status::invalid_argument(std::string("JSON: ") + e.what());
  }
}

std::string format_table(std::vector<Result> results, double baseline_us) {
  std::stable_sort(results.begin(), results.end(), [](Result const& a, Result const& b) {
    if ((a.outcome == Outcome::kPassed) != (b.outcome == Outcome::kPassed)) return a.outcome == Outcome::kPassed;
    return a.outcome == Outcome::kPassed && a.time_us < b.time_us;
  });
  double const best = !results.empty() && results[0].outcome == Outcome::kPassed ? results[0].time_us : 0.0;
  bool const ratio = baseline_us > 0;
  std::size_t width = 6;
  for (auto const& r : results) width = std::max(width, r.kernel.size());
  std::string s = fmt::format("{:>4}  {:<{}}  {:>10}  {:>8}  {:>8}  {:>7}  {}{:>10}  {}\n", "rank", "kernel", width, "time (us)", "TFLOP/s",
                              "GB/s", "vs best", ratio ? "vs cuBLAS  " : "", "model (us)", "result");
  int rank = 0;
  for (auto const& r : results) {
    if (r.outcome == Outcome::kPassed) {
      s += fmt::format("{:>4}  {:<{}}  {:>10.2f}  {:>8.1f}  {:>8.0f}  {:>7.3f}  {}{:>10.1f}  passed\n", ++rank, r.kernel, width, r.time_us,
                       r.tflops(), r.gbps(), best > 0 ? r.time_us / best : 0.0,
                       ratio ? fmt::format("{:>9.3f}  ", baseline_us / r.time_us) : "", r.predicted_us);
    } else {
      s += fmt::format("{:>4}  {:<{}}  {:>10}  {:>8}  {:>8}  {:>7}  {}{:>10.1f}  {}: {}\n", "-", r.kernel, width, "-", "-", "-", "-",
                       ratio ? fmt::format("{:>9}  ", "-") : "", r.predicted_us, outcome_name(r.outcome), r.message);
    }
  }
  return s;
}

Status write_file(std::string const& path, std::string const& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return Status::invalid_argument("cannot write '" + path + "'");
  f << text;
  return f ? Status::success() : Status::invalid_argument("writing '" + path + "' failed");
}

Status read_file(std::string const& path, std::string& text) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::invalid_argument("cannot read '" + path + "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  text = ss.str();
  return Status::success();
}

}  // namespace tessera::profiler
