#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>

namespace tessera::profiler {

namespace {
bool to_int(std::string_view s, int& v) {
  auto const [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}
}  // namespace

Status parse_int_list(std::string_view text, std::vector<int>& out) {
  std::vector<int> values;
  auto const bad = [&](std::string const& why) {
    return Status::invalid_argument("'" + std::string(text) + "': " + why +
                                    "; give positive integers (4096), lists (16,128,4096) or ranges start:end:step "
                                    "(64:512:64)");
  };
  if (text.empty()) return bad("empty");
  std::size_t i = 0;
  while (i <= text.size()) {
    std::size_t const comma = std::min(text.find(',', i), text.size());
    std::string_view const item = text.substr(i, comma - i);
    std::size_t const c1 = item.find(':');
    if (c1 == std::string_view::npos) {
      int v = 0;
      if (!to_int(item, v) || v < 1) return bad("'" + std::string(item) + "' is not a positive integer");
      values.push_back(v);
    } else {
      std::size_t const c2 = item.find(':', c1 + 1);
      int lo = 0, hi = 0, step = 0;
      if (c2 == std::string_view::npos || !to_int(item.substr(0, c1), lo) || !to_int(item.substr(c1 + 1, c2 - c1 - 1), hi) ||
          !to_int(item.substr(c2 + 1), step))
        return bad("'" + std::string(item) + "' is not a range start:end:step");
      if (lo < 1 || hi < lo || step < 1) return bad("the range '" + std::string(item) + "' needs 1 <= start <= end and step >= 1");
      if ((std::int64_t(hi) - lo) / step > 100000) return bad("the range '" + std::string(item) + "' has over 100000 values");
      for (std::int64_t v = lo; v <= hi; v += step) values.push_back(int(v));
    }
    i = comma + 1;
  }
  out = std::move(values);
  return Status::success();
}

std::string dtype_choices() { return "bf16, f16 (fp16, half), tf32 (f32), int8 (s8), e4m3 (fp8)"; }

Status parse_dtype(std::string_view t, ProblemTypes& out) {
  using gemm::Dtype;
  auto const set = [&](Dtype a, Dtype d, char const* name) {
    out = {a, a, d, name};
    return Status::success();
  };
  if (t == "bf16") return set(Dtype::kBf16, Dtype::kBf16, "bf16");
  if (t == "f16" || t == "fp16" || t == "half") return set(Dtype::kF16, Dtype::kF16, "f16");
  if (t == "tf32" || t == "f32") return set(Dtype::kF32, Dtype::kF32, "tf32");
  if (t == "int8" || t == "s8") return set(Dtype::kInt8, Dtype::kInt32, "int8");
  if (t == "e4m3" || t == "fp8") return set(Dtype::kE4m3, Dtype::kBf16, "e4m3");
  return Status::invalid_argument("unknown dtype '" + std::string(t) + "'; the dtypes are " + dtype_choices());
}

std::string layout_name(bool a_k_major, bool b_k_major) {
  std::string s = "tn";
  s[0] = a_k_major ? 't' : 'n';
  s[1] = b_k_major ? 'n' : 't';
  return s;
}

Status parse_layout(std::string_view t, Layout& out) {
  for (bool a : {true, false})
    for (bool b : {true, false})
      if (t == layout_name(a, b)) {
        out = {a, b, std::string(t)};
        return Status::success();
      }
  return Status::invalid_argument("unknown layout '" + std::string(t) +
                                  "'; the layouts are tn (row-major A, column-major B), nt (column-major A, row-major B), "
                                  "nn (column-major A and B), tt (row-major A and B)");
}

bool glob_match(std::string_view p, std::string_view s) {
  // iterative matching with one backtrack point for the last '*'
  std::size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi;
      ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

std::vector<std::string> nearest_names(std::string_view patterns, std::vector<std::string> const& names, int count) {
  auto const distance = [](std::string_view a, std::string_view b) {  // Levenshtein, one row
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        std::size_t const up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diagonal = up;
      }
    }
    return row[b.size()];
  };
  std::vector<std::string> stems;  // the patterns without their wildcards
  for (std::size_t i = 0; i <= patterns.size();) {
    std::size_t const comma = std::min(patterns.find(',', i), patterns.size());
    std::string stem;
    for (char c : patterns.substr(i, comma - i))
      if (c != '*' && c != '?') stem += c;
    stems.push_back(stem);
    i = comma + 1;
  }
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (auto const& name : names) {
    std::size_t best = std::string::npos;
    for (auto const& stem : stems) best = std::min(best, distance(stem, std::string_view(name).substr(0, std::max(stem.size(), std::size_t(1)) + 8)));
    scored.emplace_back(best, name);
  }
  std::stable_sort(scored.begin(), scored.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && int(i) < count; ++i) out.push_back(scored[i].second);
  return out;
}

Status parse_problems(std::string_view text, std::vector<std::array<int, 3>>& out) {
  out.clear();
  std::string content(text);
  if (!text.empty() && text[0] == '@') {
    std::ifstream in{std::string(text.substr(1))};
    if (!in) return Status::invalid_argument("--problems " + std::string(text) + ": cannot read " + std::string(text.substr(1)));
    content.clear();
    for (std::string line; std::getline(in, line);) content += line.substr(0, line.find('#')) + "\n";
  }
  std::size_t i = 0;
  auto const separator = [](char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (i < content.size()) {
    while (i < content.size() && separator(content[i])) ++i;
    std::size_t j = i;
    while (j < content.size() && !separator(content[j])) ++j;
    if (j == i) break;
    std::string_view const item(content.data() + i, j - i);
    std::array<int, 3> p{};
    std::size_t at = 0;
    bool ok = true;
    for (int d = 0; d < 3 && ok; ++d) {
      std::size_t const x = d < 2 ? item.find('x', at) : item.size();
      ok = x != std::string_view::npos && to_int(item.substr(at, x - at), p[std::size_t(d)]) && p[std::size_t(d)] >= 1;
      at = x + 1;
    }
    if (!ok || at != item.size() + 1)
      return Status::invalid_argument("--problems: '" + std::string(item) + "' is not MxNxK with M, N, K of at least 1 "
                                      "(e.g. 16x4096x4096,4096x14336x4096, or @file)");
    out.push_back(p);
    i = j;
  }
  if (out.empty()) return Status::invalid_argument("--problems: no problem given (MxNxK, comma-separated, or @file)");
  return Status::success();
}

Status parse_count(std::string_view option, std::string_view text, long long least, long long most) {
  long long value = 0;
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < least || value > most)
    return Status::invalid_argument(std::string(option) + " " + std::string(text) + ": must be a whole number of at least " +
                                    std::to_string(least) + (most < (1ll << 62) ? " and at most " + std::to_string(most) : ""));
  return Status::success();
}

bool matches_any(std::string_view patterns, std::string_view text) {
  std::size_t i = 0;
  while (i <= patterns.size()) {
    std::size_t const comma = std::min(patterns.find(',', i), patterns.size());
    if (glob_match(patterns.substr(i, comma - i), text)) return true;
    i = comma + 1;
  }
  return false;
}

}  // namespace tessera::profiler
