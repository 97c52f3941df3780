// The profiler's command-line vocabulary, apart from CLI11's own parsing: integer lists and
// ranges, element types, layouts, kernel-name globs, convolution directions and problems,
// attention masks and problems. Each parse returns a Status whose message names the valid choices.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/attention/problem.hpp"
#include "tessera/conv/problem.hpp"
#include "tessera/core/status.hpp"
#include "tessera/gemm/config_check.hpp"
#include "tessera/tuning/attention_mask.hpp"

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

// ---- convolutions ----------------------------------------------------------------------------

// The convolution kernels' types: bf16 or f16 (with parse_dtype's aliases); the others are refused
// with the choices.
Status parse_conv_dtype(std::string_view text, ProblemTypes& out);

// "fprop", "dgrad", "wgrad" or a comma-separated list of them (each once).
Status parse_directions(std::string_view text, std::vector<conv::Direction>& out);

// One convolution problem as `key=value` items separated by spaces or commas:
//   n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1            (a 2-D ResNet layer)
//   n=4 d=8 h=56 w=56 c=128 k=128 t=3 r=3 s=3 pad=1   (3-D)
// keys n, d, h, w, c, k, t, r, s, groups (whole numbers; n, w, c and k have no default, the others
// 1), and pad, pad_before, pad_after, stride, dilation: "V" for each of the problem's spatial
// dimensions (width, height where H or R > 1, depth where D or T > 1; the others keep 0 padding,
// stride and dilation 1), "HxW" or "DxHxW". The problem must pass conv::check.
Status parse_conv_problem(std::string_view item, conv::Problem& out);
// The problem as parse_conv_problem reads it back (keys at their defaults left out):
// "n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1".
std::string conv_problem_text(conv::Problem const& p);
// Problems separated by ';' or line breaks, or "@file" (one or more a line; '#' starts a comment).
Status parse_conv_problems(std::string_view text, std::vector<conv::Problem>& out);

// ---- attention -------------------------------------------------------------------------------

// The attention kernels' types: bf16 or f16 (with parse_dtype's aliases: fp16, half), or e4m3 (fp8:
// Q, K and V in e4m3 with per-tensor scales, O in bf16; the Hopper kernel's).
Status parse_attention_dtype(std::string_view text, ProblemTypes& out);

// A mask as the profiler runs it: "none", "causal" (bottom-right: query q sees keys up to
// q + sk - sq, FlashAttention's alignment), "causal-tl" (top-left: keys up to q) or "window:L,R"
// (keys within [q + sk - sq - L, q + sk - sq + R]; -1: unbounded on that side).
struct AttentionMaskSetting {
  tuning::AttentionMask kind = tuning::AttentionMask::kNone;
  int left = -1, right = -1;  // kWindow's
  friend bool operator==(AttentionMaskSetting const&, AttentionMaskSetting const&) = default;
};
Status parse_attention_mask(std::string_view text, AttentionMaskSetting& out);
std::string attention_mask_text(AttentionMaskSetting const& m);  // as parse_attention_mask reads it

// "bshd" ([batch][seq][head][dim]) or "bhsd" ([batch][head][seq][dim]).
Status parse_attention_layout(std::string_view text, attention::Layout& out);
char const* attention_layout_name(attention::Layout l);

// The lengths of a packed batch's sequences: whole numbers from 0 (an empty sequence) up,
// comma-separated ("512,1024,0,1,3000"); `what` names them in a message ("--seqlens").
Status parse_seqlens(std::string_view what, std::string_view text, std::vector<int>& out);

// One attention problem: its sizes, mask and layout (packed tensors).
struct AttentionShape {
  int batch = 1, heads = 1, heads_kv = 1, seqlen_q = 1, seqlen_k = 1, head_dim = 128, head_dim_v = 128;
  AttentionMaskSetting mask{};
  attention::Layout layout = attention::Layout::kBSHD;
  // Variable lengths (set_seqlens): each batch entry's queries and keys, packed into BSHD rows of
  // all tokens (cu_seqlens); empty for fixed lengths. Then batch is their count and seqlen_q and
  // seqlen_k are the longest.
  std::vector<int> seqlens_q, seqlens_k;
  friend bool operator==(AttentionShape const&, AttentionShape const&) = default;

  bool variable() const { return !seqlens_q.empty(); }
  // The tokens of Q and of K and V: batch x seqlen, or the sum of the lengths.
  std::int64_t total_q() const;
  std::int64_t total_k() const;
  // The problem (variable lengths: the device's cu_seqlens; without them the problem has fixed
  // lengths of the longest sequences, as the checks that need no device see it).
  attention::Problem problem(int const* cu_seqlens_q = nullptr, int const* cu_seqlens_k = nullptr) const;
  // The (query, key) pairs whose scores the mask keeps, of one head of all batch entries (of
  // one batch entry where the lengths are fixed).
  double visible_pairs() const;
  // FlashAttention's count: 2 (head_dim + head_dim_v) per visible pair, heads of them (and batch
  // entries where the lengths are fixed); a causal mask on a sequence of as many keys as queries
  // counts half of its seqlen_q x seqlen_k (4 b h s^2 d / 2 where the head dims agree), as
  // FlashAttention and bench_attention do.
  double flops() const;
  // Q, K and V once in `element_bytes`, O in `output_bytes` (0: element_bytes), and the LSE.
  double bytes(int element_bytes, int output_bytes = 0) const;
};

// Makes `a` a packed batch of sequences of q[i] queries and k[i] keys (k empty: as q): batch,
// seqlen_q and seqlen_k follow. Fails with the fix where the counts differ, every sequence of
// queries is empty, the tokens reach 2^31, or the layout is not BSHD (the packed rows' layout).
Status set_seqlens(AttentionShape& a, std::vector<int> q, std::vector<int> k);

// One problem as key=value items separated by spaces: batch, heads, heads_kv, sq, sk, dim (no
// default but batch = heads = heads_kv = 1), dim_v (default: dim), mask (as above, default none)
// and layout (default bshd):
//   batch=2 heads=16 heads_kv=4 sq=1024 sk=1024 dim=128 mask=causal
// or, for a packed batch of variable lengths, seqlens (and seqlens_k where the keys' differ) in
// place of batch, sq and sk:
//   heads=16 heads_kv=4 seqlens=512,1024,0,1,3000 dim=128 mask=causal
// The problem must pass attention::check.
Status parse_attention_problem(std::string_view item, AttentionShape& out);
// The problem as parse_attention_problem reads it back (dim_v and layout left out at their defaults;
// seqlens_k where it equals seqlens).
std::string attention_problem_text(AttentionShape const& s);
// Problems separated by ';' or line breaks, or "@file" (one or more a line; '#' starts a comment).
Status parse_attention_problems(std::string_view text, std::vector<AttentionShape>& out);

}  // namespace tessera::profiler
