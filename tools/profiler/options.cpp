#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>

#include "tessera/attention/masks.hpp"
#include "tessera/conv/config_check.hpp"

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

namespace {
// The text of --problems: as given, or "@file"'s lines without their '#' comments.
Status problems_text(std::string_view text, std::string& content) {
  content = std::string(text);
  if (!text.empty() && text[0] == '@') {
    std::ifstream in{std::string(text.substr(1))};
    if (!in) return Status::invalid_argument("--problems " + std::string(text) + ": cannot read " + std::string(text.substr(1)));
    content.clear();
    for (std::string line; std::getline(in, line);) content += line.substr(0, line.find('#')) + "\n";
  }
  return Status::success();
}
}  // namespace

namespace {
// f(key, value) for each key=value token of `item` (tokens apart by any of `separators`), in order;
// a token without '=' (the message lists `keys`) or a key given twice is refused, and f's first
// failure stops the walk.
template <class F>
Status for_each_key_value(std::string_view item, std::string_view separators, char const* keys, F&& f) {
  std::vector<std::string> seen;
  std::size_t i = 0;
  while (i < item.size()) {
    while (i < item.size() && separators.find(item[i]) != std::string_view::npos) ++i;
    std::size_t j = i;
    while (j < item.size() && separators.find(item[j]) == std::string_view::npos) ++j;
    if (j == i) break;
    std::string_view const token = item.substr(i, j - i);
    i = j;
    std::size_t const eq = token.find('=');
    if (eq == std::string_view::npos)
      return Status::invalid_argument("'" + std::string(token) + "' is not key=value (the keys: " + keys + ")");
    std::string const key(token.substr(0, eq));
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) return Status::invalid_argument("'" + key + "' is given twice");
    seen.push_back(key);
    TESSERA_RETURN_IF_ERROR(f(key, token.substr(eq + 1)));
  }
  return Status::success();
}

// Problems separated by ';' or line breaks, or "@file": each item, its `blank` characters trimmed,
// through parse(item, problem); `none` is the message when there is none.
template <class T, class Parse>
Status parse_problem_list(std::string_view text, std::string_view blank, Parse parse, char const* none, std::vector<T>& out) {
  std::string content;
  TESSERA_RETURN_IF_ERROR(problems_text(text, content));
  std::vector<T> problems;
  for (std::size_t i = 0; i <= content.size();) {
    std::size_t const end = std::min(content.find_first_of(";\n", i), content.size());
    std::string_view const item = std::string_view(content).substr(i, end - i);
    if (item.find_first_not_of(blank) != std::string_view::npos) {
      T p;
      std::size_t const first = item.find_first_not_of(blank), last = item.find_last_not_of(blank);
      if (Status const s = parse(item.substr(first, last + 1 - first), p); !s) return Status::invalid_argument("--problems: " + s.detail());
      problems.push_back(p);
    }
    i = end + 1;
  }
  if (problems.empty()) return Status::invalid_argument(none);
  out = std::move(problems);
  return Status::success();
}
}  // namespace

Status parse_problems(std::string_view text, std::vector<std::array<int, 3>>& out) {
  out.clear();
  std::string content;
  TESSERA_RETURN_IF_ERROR(problems_text(text, content));
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

namespace {
// bf16 or f16 (parse_dtype's aliases too), the types of an operation whose kernels take no other.
Status parse_16bit_dtype(std::string_view text, ProblemTypes& out, std::string const& operation) {
  ProblemTypes t;
  Status const s = parse_dtype(text, t);
  if (s && (t.a == gemm::Dtype::kBf16 || t.a == gemm::Dtype::kF16)) {
    out = t;
    return s;
  }
  return Status::invalid_argument((s ? "dtype '" + std::string(text) + "' has no " + operation + " kernels" : "unknown dtype '" + std::string(text) + "'") +
                                  "; the " + operation + " dtypes are bf16, f16 (fp16, half)");
}
}  // namespace

// ---- convolutions ----------------------------------------------------------------------------

Status parse_conv_dtype(std::string_view text, ProblemTypes& out) { return parse_16bit_dtype(text, out, "convolution"); }

Status parse_directions(std::string_view text, std::vector<conv::Direction>& out) {
  std::vector<conv::Direction> dirs;
  for (std::size_t i = 0; i <= text.size();) {
    std::size_t const comma = std::min(text.find(',', i), text.size());
    std::string_view const item = text.substr(i, comma - i);
    bool known = false;
    for (conv::Direction d : {conv::Direction::kFprop, conv::Direction::kDgrad, conv::Direction::kWgrad})
      if (item == conv::direction_name(d)) {
        if (std::find(dirs.begin(), dirs.end(), d) != dirs.end())
          return Status::invalid_argument("direction '" + std::string(item) + "' is given twice in '" + std::string(text) + "'");
        dirs.push_back(d);
        known = true;
      }
    if (!known)
      return Status::invalid_argument("unknown direction '" + std::string(item) +
                                      "'; the directions are fprop (forward), dgrad (data gradient), wgrad (weight gradient), or a "
                                      "comma-separated list of them");
    i = comma + 1;
  }
  out = std::move(dirs);
  return Status::success();
}

namespace {
// A spatial setting as written: 1 value (each of the problem's spatial dimensions), 2 (H, W) or 3 (D, H, W).
struct Spatial {
  std::array<int, 3> v{};
  int count = 0;  // 0: not given
};

Status parse_spatial(std::string_view key, std::string_view text, int least, Spatial& out) {
  Spatial sp;
  std::size_t at = 0;
  while (at <= text.size() && sp.count < 4) {
    std::size_t const x = std::min(text.find('x', at), text.size());
    int v = 0;
    if (sp.count == 3 || !to_int(text.substr(at, x - at), v) || v < least)
      return Status::invalid_argument(std::string(key) + "=" + std::string(text) + ": give V (each spatial dimension), HxW or DxHxW, " +
                                      "whole numbers of at least " + std::to_string(least));
    sp.v[std::size_t(sp.count++)] = v;
    at = x + 1;
  }
  out = sp;
  return Status::success();
}

// The spatial dimensions a problem has: width always, height where H or R > 1, depth where D or T > 1.
std::array<bool, 3> spatial_dims(conv::Problem const& p) { return {p.d > 1 || p.t > 1, p.h > 1 || p.r > 1, true}; }

// `given` over the problem's dimensions ("V": the dimensions it has, `fallback` elsewhere).
Array<int, 3> expand(Spatial const& given, conv::Problem const& p, int fallback) {
  Array<int, 3> v{fallback, fallback, fallback};
  auto const dims = spatial_dims(p);
  for (int d = 0; d < 3; ++d) {
    if (given.count == 1 && dims[std::size_t(d)]) v[std::size_t(d)] = given.v[0];
    if (given.count == 2 && d > 0) v[std::size_t(d)] = given.v[std::size_t(d - 1)];
    if (given.count == 3) v[std::size_t(d)] = given.v[std::size_t(d)];
  }
  return v;
}

// The shortest text `expand` reads back as v: "" (all `fallback`), "V", "HxW" or "DxHxW".
std::string spatial_text(Array<int, 3> const& v, conv::Problem const& p, int fallback) {
  auto const dims = spatial_dims(p);
  if (v[0] == fallback && v[1] == fallback && v[2] == fallback) return "";
  bool uniform = true;
  for (int d = 0; d < 3; ++d) uniform = uniform && v[std::size_t(d)] == (dims[std::size_t(d)] ? v[2] : fallback);
  if (uniform) return std::to_string(v[2]);
  if (v[0] == fallback) return std::to_string(v[1]) + "x" + std::to_string(v[2]);
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

bool same_array(Array<int, 3> const& a, Array<int, 3> const& b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

constexpr char kConvKeys[] = "n, d, h, w, c, k, t, r, s, groups, pad, pad_before, pad_after, stride, dilation";
}  // namespace

Status parse_conv_problem(std::string_view item, conv::Problem& out) {
  conv::Problem p;
  p.n = p.w = p.c = p.k = 0;
  Spatial pad, pad_before, pad_after, stride, dilation;
  auto const bad = [&](std::string const& why) {
    return Status::invalid_argument("convolution '" + std::string(item) + "': " + why);
  };
  Status const items = for_each_key_value(item, " ,\t", kConvKeys, [&](std::string const& key, std::string_view value) -> Status {
    struct {
      char const* name;
      int* field;
    } const ints[] = {{"n", &p.n}, {"d", &p.d}, {"h", &p.h}, {"w", &p.w}, {"c", &p.c}, {"k", &p.k},
                      {"t", &p.t}, {"r", &p.r}, {"s", &p.s}, {"groups", &p.groups}};
    bool done = false;
    for (auto const& f : ints)
      if (key == f.name) {
        if (!to_int(value, *f.field) || *f.field < 1)
          return Status::invalid_argument(key + "=" + std::string(value) + ": must be a whole number of at least 1");
        done = true;
      }
    struct {
      char const* name;
      Spatial* field;
      int least;
    } const spatials[] = {{"pad", &pad, 0}, {"pad_before", &pad_before, 0}, {"pad_after", &pad_after, 0}, {"stride", &stride, 1},
                          {"dilation", &dilation, 1}};
    for (auto const& f : spatials)
      if (key == f.name) {
        TESSERA_RETURN_IF_ERROR(parse_spatial(key, value, f.least, *f.field));
        done = true;
      }
    return done ? Status::success() : Status::invalid_argument("unknown key '" + key + "'; the keys are " + kConvKeys);
  });
  if (!items) return bad(items.detail());
  for (auto const& [name, v] : {std::pair{"n", p.n}, std::pair{"w", p.w}, std::pair{"c", p.c}, std::pair{"k", p.k}})
    if (v == 0) return bad(std::string(name) + " is missing (n, w, c and k have no default; e.g. n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1)");
  if (pad.count > 0 && (pad_before.count > 0 || pad_after.count > 0)) return bad("give pad, or pad_before and pad_after, not both");
  p.pad_before = expand(pad.count > 0 ? pad : pad_before, p, 0);
  p.pad_after = expand(pad.count > 0 ? pad : pad_after, p, 0);
  p.stride = expand(stride, p, 1);
  p.dilation = expand(dilation, p, 1);
  if (Status const s = conv::check(p); !s) return bad(s.detail());
  out = p;
  return Status::success();
}

std::string conv_problem_text(conv::Problem const& p) {
  std::string t = "n=" + std::to_string(p.n);
  auto const add = [&](char const* key, std::string const& value) {
    if (!value.empty()) t.append(" ").append(key).append("=").append(value);
  };
  auto const count = [](int v, bool show) { return show ? std::to_string(v) : std::string(); };
  add("d", count(p.d, p.d != 1));
  add("h", count(p.h, p.h != 1));
  add("w", std::to_string(p.w));
  add("c", std::to_string(p.c));
  add("k", std::to_string(p.k));
  add("t", count(p.t, p.t != 1));
  add("r", count(p.r, p.r != 1));
  add("s", count(p.s, p.s != 1));
  add("groups", count(p.groups, p.groups != 1));
  if (same_array(p.pad_before, p.pad_after)) {
    add("pad", spatial_text(p.pad_before, p, 0));
  } else {
    add("pad_before", spatial_text(p.pad_before, p, 0));
    add("pad_after", spatial_text(p.pad_after, p, 0));
  }
  add("stride", spatial_text(p.stride, p, 1));
  add("dilation", spatial_text(p.dilation, p, 1));
  return t;
}

Status parse_conv_problems(std::string_view text, std::vector<conv::Problem>& out) {
  return parse_problem_list(text, " \t\r,", parse_conv_problem,
                            "--problems: no convolution given (key=value items, problems separated by ';', or @file; e.g. "
                            "'n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1')",
                            out);
}

// ---- attention -------------------------------------------------------------------------------

Status parse_attention_dtype(std::string_view text, ProblemTypes& out) {
  ProblemTypes t;
  Status const s = parse_dtype(text, t);
  if (s && (t.a == gemm::Dtype::kBf16 || t.a == gemm::Dtype::kF16 || t.a == gemm::Dtype::kE4m3)) {
    out = t;
    return s;
  }
  return Status::invalid_argument((s ? "dtype '" + std::string(text) + "' has no attention kernels" : "unknown dtype '" + std::string(text) + "'") +
                                  "; the attention dtypes are bf16, f16 (fp16, half) and e4m3 (fp8: Q, K and V in e4m3, O in bf16)");
}

namespace {
constexpr char kMaskChoices[] =
    "the masks are none, causal (bottom-right aligned), causal-tl (top-left aligned) and window:L,R (keys within L before and R "
    "after the bottom-right aligned position; -1: unbounded)";
}  // namespace

Status parse_attention_mask(std::string_view t, AttentionMaskSetting& out) {
  using tuning::AttentionMask;
  auto const set = [&](AttentionMask kind) {
    out = {kind};
    return Status::success();
  };
  if (t == "none") return set(AttentionMask::kNone);
  if (t == "causal") return set(AttentionMask::kCausal);
  if (t == "causal-tl" || t == "causal_tl") return set(AttentionMask::kCausalTopLeft);
  if (t.rfind("window:", 0) == 0) {
    std::string_view const bounds = t.substr(7);
    std::size_t const comma = bounds.find(',');
    int l = 0, r = 0;
    if (comma == std::string_view::npos || !to_int(bounds.substr(0, comma), l) || !to_int(bounds.substr(comma + 1), r) || l < -1 || r < -1)
      return Status::invalid_argument("mask '" + std::string(t) + "': give window:L,R with L and R whole numbers (-1: unbounded), e.g. window:256,0");
    if (l > attention::kMaxWindow || r > attention::kMaxWindow)
      return Status::invalid_argument("mask '" + std::string(t) + "': the bounds must be at most 2^30; give -1 for an unbounded side");
    out = {AttentionMask::kWindow, l, r};
    return Status::success();
  }
  return Status::invalid_argument("unknown mask '" + std::string(t) + "'; " + kMaskChoices);
}

std::string attention_mask_text(AttentionMaskSetting const& m) {
  switch (m.kind) {
    case tuning::AttentionMask::kCausal: return "causal";
    case tuning::AttentionMask::kCausalTopLeft: return "causal-tl";
    case tuning::AttentionMask::kWindow: return "window:" + std::to_string(m.left) + "," + std::to_string(m.right);
    default: return "none";
  }
}

char const* attention_layout_name(attention::Layout l) { return l == attention::Layout::kBHSD ? "bhsd" : "bshd"; }

Status parse_attention_layout(std::string_view t, attention::Layout& out) {
  for (attention::Layout l : {attention::Layout::kBSHD, attention::Layout::kBHSD})
    if (t == attention_layout_name(l)) {
      out = l;
      return Status::success();
    }
  return Status::invalid_argument("unknown attention layout '" + std::string(t) +
                                  "'; the layouts are bshd ([batch][seq][head][dim]) and bhsd ([batch][head][seq][dim])");
}

namespace {
// The pairs the mask keeps of a sequence of sq queries and sk keys (attention/masks.hpp's ranges).
double mask_pairs(AttentionMaskSetting const& mask, int sq, int sk) {
  using tuning::AttentionMask;
  if (mask.kind == AttentionMask::kNone) return double(sq) * sk;
  int const offset = mask.kind == AttentionMask::kCausalTopLeft ? 0 : sk - sq;
  int const left = mask.kind == AttentionMask::kWindow ? mask.left : -1, right = mask.kind == AttentionMask::kWindow ? mask.right : 0;
  double pairs = 0;
  for (int q = 0; q < sq; ++q) {
    std::int64_t const at = std::int64_t(q) + offset;
    std::int64_t const lo = left < 0 ? 0 : std::max<std::int64_t>(0, at - left);
    std::int64_t const hi = right < 0 ? sk : std::min<std::int64_t>(sk, at + right + 1);
    pairs += double(std::max<std::int64_t>(0, hi - lo));
  }
  return pairs;
}
// FlashAttention's pairs: half of sq x sk for a causal mask on as many keys as queries.
double counted_pairs(AttentionMaskSetting const& mask, int sq, int sk) {
  bool const causal = mask.kind == tuning::AttentionMask::kCausal || mask.kind == tuning::AttentionMask::kCausalTopLeft;
  return causal && sq == sk ? double(sq) * sk / 2 : mask_pairs(mask, sq, sk);
}
std::int64_t sum(std::vector<int> const& v) {
  std::int64_t s = 0;
  for (int x : v) s += x;
  return s;
}
}  // namespace

std::int64_t AttentionShape::total_q() const { return variable() ? sum(seqlens_q) : std::int64_t(batch) * seqlen_q; }
std::int64_t AttentionShape::total_k() const { return variable() ? sum(seqlens_k) : std::int64_t(batch) * seqlen_k; }

attention::Problem AttentionShape::problem(int const* cu_seqlens_q, int const* cu_seqlens_k) const {
  if (variable() && cu_seqlens_q != nullptr)
    return attention::Problem::variable_lengths(batch, heads, heads_kv, cu_seqlens_q, cu_seqlens_k, seqlen_q, seqlen_k, total_q(), total_k(),
                                                head_dim, head_dim_v);
  return attention::Problem::dense(batch, heads, heads_kv, seqlen_q, seqlen_k, head_dim, layout, head_dim_v);
}

double AttentionShape::visible_pairs() const {
  if (!variable()) return mask_pairs(mask, seqlen_q, seqlen_k);
  double pairs = 0;
  for (std::size_t b = 0; b < seqlens_q.size(); ++b) pairs += mask_pairs(mask, seqlens_q[b], seqlens_k[b]);
  return pairs;
}

double AttentionShape::flops() const {
  double pairs = 0;
  if (!variable()) pairs = double(batch) * counted_pairs(mask, seqlen_q, seqlen_k);
  for (std::size_t b = 0; b < seqlens_q.size(); ++b) pairs += counted_pairs(mask, seqlens_q[b], seqlens_k[b]);
  return 2.0 * (head_dim + head_dim_v) * heads * pairs;
}

double AttentionShape::bytes(int element_bytes, int output_bytes) const {
  if (output_bytes == 0) output_bytes = element_bytes;
  double const q = double(total_q()) * heads * head_dim, k = double(total_k()) * heads_kv * head_dim;
  double const v = double(total_k()) * heads_kv * head_dim_v, o = double(total_q()) * heads * head_dim_v;
  return (q + k + v) * element_bytes + o * output_bytes + double(total_q()) * heads * 4;
}

Status parse_seqlens(std::string_view what, std::string_view text, std::vector<int>& out) {
  std::vector<int> v;
  auto const bad = [&](std::string const& why) {
    return Status::invalid_argument(std::string(what) + " '" + std::string(text) + "': " + why +
                                    "; give each sequence's length, comma-separated, 0 for an empty one (e.g. 512,1024,0,1,3000)");
  };
  for (std::size_t i = 0; i <= text.size();) {
    std::size_t const comma = std::min(text.find(',', i), text.size());
    std::string_view const item = text.substr(i, comma - i);
    int x = 0;
    if (!to_int(item, x) || x < 0) return bad("'" + std::string(item) + "' is not a whole number of at least 0");
    v.push_back(x);
    if (v.size() > 65535) return bad("over 65535 sequences");
    i = comma + 1;
  }
  out = std::move(v);
  return Status::success();
}

Status set_seqlens(AttentionShape& a, std::vector<int> q, std::vector<int> k) {
  if (k.empty()) k = q;
  auto const bad = [](std::string const& m) { return Status::invalid_argument("variable lengths: " + m); };
  if (q.empty()) return bad("no sequence given; give each sequence's length (seqlens=512,1024,0,1,3000)");
  if (k.size() != q.size())
    return bad("the keys' lengths (" + std::to_string(k.size()) + ") are not one per sequence (" + std::to_string(q.size()) +
               "); give as many as the queries' (or none: the keys' lengths are then the queries')");
  if (sum(q) == 0) return bad("every sequence of queries is empty; give at least one length above 0");
  if (sum(q) >= (std::int64_t(1) << 31) || sum(k) >= (std::int64_t(1) << 31))
    return bad("the packed batch holds 2^31 tokens or more; profile fewer or shorter sequences");
  if (a.layout != attention::Layout::kBSHD)
    return bad("a packed batch's tokens are BSHD rows ([token][head][dim], attention::Problem::variable_lengths); drop the bhsd layout");
  a.batch = int(q.size());
  a.seqlen_q = *std::max_element(q.begin(), q.end());
  a.seqlen_k = *std::max_element(k.begin(), k.end());
  a.seqlens_q = std::move(q);
  a.seqlens_k = std::move(k);
  return Status::success();
}

namespace {
constexpr char kAttentionKeys[] = "batch, heads, heads_kv, sq, sk, dim, dim_v, mask, layout, seqlens, seqlens_k";

std::string join(std::vector<int> const& v) {
  std::string t;
  for (int x : v) t += (t.empty() ? "" : ",") + std::to_string(x);
  return t;
}
}  // namespace

Status parse_attention_problem(std::string_view item, AttentionShape& out) {
  AttentionShape a;
  a.seqlen_q = a.seqlen_k = a.head_dim = a.head_dim_v = 0;
  bool batch_given = false;
  std::vector<int> seqlens_q, seqlens_k;
  bool seqlens_k_given = false;
  auto const bad = [&](std::string const& why) { return Status::invalid_argument("attention '" + std::string(item) + "': " + why); };
  // (tokens apart by blanks, not commas: window:L,R and seqlens have them)
  Status const items = for_each_key_value(item, " \t", kAttentionKeys, [&](std::string const& key, std::string_view value) -> Status {
    struct {
      char const* name;
      int* field;
    } const ints[] = {{"batch", &a.batch}, {"heads", &a.heads}, {"heads_kv", &a.heads_kv}, {"sq", &a.seqlen_q},
                      {"sk", &a.seqlen_k},  {"dim", &a.head_dim}, {"dim_v", &a.head_dim_v}};
    bool done = false;
    for (auto const& f : ints)
      if (key == f.name) {
        if (!to_int(value, *f.field) || *f.field < 1)
          return Status::invalid_argument(key + "=" + std::string(value) + ": must be a whole number of at least 1");
        done = true;
      }
    batch_given |= key == "batch";
    if (key == "mask") return parse_attention_mask(value, a.mask);
    if (key == "layout") return parse_attention_layout(value, a.layout);
    if (key == "seqlens") return parse_seqlens("seqlens", value, seqlens_q);
    if (key == "seqlens_k") {
      seqlens_k_given = true;
      return parse_seqlens("seqlens_k", value, seqlens_k);
    }
    return done ? Status::success() : Status::invalid_argument("unknown key '" + key + "'; the keys are " + kAttentionKeys);
  });
  if (!items) return bad(items.detail());
  if (seqlens_k_given && seqlens_q.empty()) return bad("seqlens_k gives the keys' lengths of a packed batch; give seqlens (the queries') too");
  if (!seqlens_q.empty()) {
    if (batch_given || a.seqlen_q != 0 || a.seqlen_k != 0)
      return bad("seqlens gives the batch and its lengths (sq and sk are the longest); leave out batch, sq and sk");
    if (a.head_dim == 0) return bad("dim is missing (e.g. heads=16 seqlens=512,1024,0,1,3000 dim=128)");
    if (Status const s = set_seqlens(a, std::move(seqlens_q), std::move(seqlens_k)); !s) return bad(s.detail());
  }
  for (auto const& [name, v] : {std::pair{"sq", a.seqlen_q}, std::pair{"sk", a.seqlen_k}, std::pair{"dim", a.head_dim}})
    if (v == 0 && !a.variable())
      return bad(std::string(name) + " is missing (sq, sk and dim have no default; e.g. batch=2 heads=16 heads_kv=4 sq=1024 sk=1024 dim=128 mask=causal)");
  if (a.head_dim_v == 0) a.head_dim_v = a.head_dim;
  if (Status const s = attention::check(a.problem()); !s) return bad(s.detail());
  out = a;
  return Status::success();
}

std::string attention_problem_text(AttentionShape const& a) {
  std::string t = a.variable() ? "heads=" + std::to_string(a.heads) + " heads_kv=" + std::to_string(a.heads_kv) + " seqlens=" + join(a.seqlens_q)
                               : "batch=" + std::to_string(a.batch) + " heads=" + std::to_string(a.heads) + " heads_kv=" + std::to_string(a.heads_kv) +
                                     " sq=" + std::to_string(a.seqlen_q) + " sk=" + std::to_string(a.seqlen_k);
  if (a.variable() && a.seqlens_k != a.seqlens_q) t += " seqlens_k=" + join(a.seqlens_k);
  t += " dim=" + std::to_string(a.head_dim);
  if (a.head_dim_v != a.head_dim) t += " dim_v=" + std::to_string(a.head_dim_v);
  t += " mask=" + attention_mask_text(a.mask);
  if (a.layout != attention::Layout::kBSHD) t += std::string(" layout=") + attention_layout_name(a.layout);
  return t;
}

Status parse_attention_problems(std::string_view text, std::vector<AttentionShape>& out) {
  return parse_problem_list(text, " \t\r", parse_attention_problem,
                            "--problems: no attention problem given (key=value items, problems separated by ';', or @file; e.g. "
                            "'batch=2 heads=16 heads_kv=4 sq=1024 sk=1024 dim=128 mask=causal' or 'heads=16 seqlens=512,1024,0,1,3000 "
                            "dim=128')",
                            out);
}

}  // namespace tessera::profiler
