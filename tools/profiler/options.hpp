// The profiler's command-line vocabulary, apart from CLI11's own parsing: integer lists and
// ranges, element types, layouts, kernel-name globs. Each parse returns a Status whose message
// names the valid choices.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/status.hpp"
#include "tessera/gemm/config_check.hpp"

namespace tessera::profiler {

// "4096", "16,128,4096", "64:512:64" (start:end:step, end included) or a mix ("1,16:64:16").
Status parse_int_list(std::string_view text, std::vector<int>& out);

// The element types of a problem: A, B and D (accumulation follows from them).
struct ProblemTypes {
  gemm::Dtype a = gemm::Dtype::kUnknown, b = gemm::Dtype::kUnknown, d = gemm::Dtype::kUnknown;
  std::string name;  // as the user wrote it, canonicalized ("bf16", "f16", "tf32", "int8", "e4m3")
};
// bf16, f16 (fp16, half), tf32 (f32), int8 (s8: int32 D), e4m3 (fp8: bf16 D).
Status parse_dtype(std::string_view text, ProblemTypes& out);
std::string dtype_choices();

// tn (row-major A, column-major B: both K-major), nt, nn, tt; as in the configurations' names.
struct Layout {
  bool a_k_major = true, b_k_major = true;
  std::string name;
};
Status parse_layout(std::string_view text, Layout& out);
std::string layout_name(bool a_k_major, bool b_k_major);

// '*' (any run) and '?' (one character); a comma-separated list matches when any pattern does.
bool glob_match(std::string_view pattern, std::string_view text);
bool matches_any(std::string_view patterns, std::string_view text);

// The `count` names nearest to `patterns` (each pattern's * and ? dropped; edit distance, the
// smallest over the patterns), nearest first: what a --kernels filter that matches nothing
// suggests. nearest_names("sm90_bf16_tn_128x265*", names, 3) -> {"sm90_bf16_tn_128x256x64_...", ...}
std::vector<std::string> nearest_names(std::string_view patterns, std::vector<std::string> const& names, int count);

// Explicit problems: "MxNxK" items separated by commas or white space ("16x4096x4096,4096x14336x4096"),
// or "@file" for a file of them (one or more a line; '#' starts a comment). Each extent at least 1.
Status parse_problems(std::string_view text, std::vector<std::array<int, 3>>& out);

// A whole number from `least` to `most`, or a message that names the option and its range (CLI11's
// own range check printed the largest double as the bound).
Status parse_count(std::string_view option, std::string_view text, long long least, long long most = 1ll << 62);

}  // namespace tessera::profiler
