// An attention problem: its shape, its tensors' layout and its lengths (no pointers: those are
// the Arguments'), with the host-side check that says what is wrong and how to fix it.
//
//   O[b, s, h, :] = softmax_k(chain(scale Q[b, s, h, :] . K[b, k, h_kv, :])) V[b, k, h_kv, :]
//
// where h_kv = h / (heads / heads_kv) (GQA: each group of heads / heads_kv query heads reads one
// K/V head; MQA: heads_kv = 1) and the chain is the Config's masks and score stages. A query
// whose every score is masked gets O = 0 and LSE = -infinity.
//
//   attention::Problem p = attention::Problem::dense(/*batch*/ 2, /*heads*/ 32, /*heads_kv*/ 8,
//                                                    /*seqlen_q*/ 4096, /*seqlen_k*/ 4096,
//                                                    /*head_dim*/ 128, attention::Layout::kBSHD);
//   if (Status s = attention::check(p); !s) ...
//
// Layouts by strides (in elements; the head dimension is contiguous): each of Q, K, V and O has
// strides between batch entries, sequence positions and heads, so BSHD ([batch][seq][head][dim])
// and BHSD ([batch][head][seq][dim]) are two choices of strides. Variable lengths: cu_seqlens_q
// and cu_seqlens_k (batch + 1 ascending offsets each, device memory) place batch entry b's
// tokens at [cu[b], cu[b + 1]) of one packed token dimension (the batch stride is unused);
// seqlen_q and seqlen_k are then the longest lengths. LSE (optional, float, natural log): [batch]
// [heads][seqlen_q] for fixed lengths, [heads][total_q] with cu_seqlens_q (FlashAttention's).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "tessera/core/config.hpp"
#include "tessera/core/status.hpp"

namespace tessera::attention {

enum class Layout { kBSHD, kBHSD };

struct Strides {
  std::int64_t batch = 0, seq = 0, head = 0;  // elements

  // A packed tensor of `seqlen` positions, `heads` heads of `dim` values in `layout`.
  static constexpr Strides packed(Layout layout, int seqlen, int heads, int dim) {
    std::int64_t const row = std::int64_t(heads) * dim, plane = std::int64_t(seqlen) * dim;
    return layout == Layout::kBSHD ? Strides{std::int64_t(seqlen) * row, row, dim} : Strides{std::int64_t(heads) * plane, dim, plane};
  }
  TESSERA_HD constexpr std::int64_t offset(int b, int s, int h) const { return b * batch + s * seq + h * head; }
};

struct Problem {
  int batch = 1;
  int heads = 1;     // query heads
  int heads_kv = 1;  // key and value heads: a divisor of heads
  int seqlen_q = 0, seqlen_k = 0;
  int head_dim = 128;    // of Q and K
  int head_dim_v = 128;  // of V and O
  float scale = 0.0f;    // the softmax scale; 0: 1 / sqrt(head_dim)
  Strides q, k, v, o;
  int const* cu_seqlens_q = nullptr;  // variable lengths: both or neither
  int const* cu_seqlens_k = nullptr;
  std::int64_t total_q = 0, total_k = 0;  // variable lengths: the packed tensors' tokens (cu_seqlens' last offsets)

  bool variable() const { return cu_seqlens_q != nullptr; }
  int group() const { return heads / heads_kv; }  // query heads a K/V head serves
  float softmax_scale() const { return scale != 0.0f ? scale : 1.0f / std::sqrt(float(head_dim)); }

  // Packed tensors of fixed lengths in `layout`, V's head dimension head_dim_v (0: head_dim).
  static Problem dense(int batch, int heads, int heads_kv, int seqlen_q, int seqlen_k, int head_dim, Layout layout, int head_dim_v = 0) {
    Problem p;
    p.batch = batch, p.heads = heads, p.heads_kv = heads_kv, p.seqlen_q = seqlen_q, p.seqlen_k = seqlen_k;
    p.head_dim = head_dim, p.head_dim_v = head_dim_v > 0 ? head_dim_v : head_dim;
    p.q = Strides::packed(layout, seqlen_q, heads, head_dim);
    p.k = Strides::packed(layout, seqlen_k, heads_kv, head_dim);
    p.v = Strides::packed(layout, seqlen_k, heads_kv, p.head_dim_v);
    p.o = Strides::packed(layout, seqlen_q, heads, p.head_dim_v);
    return p;
  }
  // Packed variable-length tensors (BSHD rows of all tokens: [token][head][dim]) whose lengths are
  // given by cu_seqlens_q / cu_seqlens_k; max_q and max_k: the longest sequences; total_q and
  // total_k: the tokens of all (the tensors' rows: the kernels read no further). The offsets are
  // in device memory, so the host cannot check them: they must ascend from 0, end at most at
  // total_q / total_k, and no sequence may be longer than max_q / max_k (a kernel leaves the rows
  // of one that is unwritten, and never writes past O or the LSE).
  static Problem variable_lengths(int batch, int heads, int heads_kv, int const* cu_seqlens_q, int const* cu_seqlens_k, int max_q,
                                  int max_k, std::int64_t total_q, std::int64_t total_k, int head_dim, int head_dim_v = 0) {
    Problem p = dense(batch, heads, heads_kv, max_q, max_k, head_dim, Layout::kBSHD, head_dim_v);
    p.q.batch = p.k.batch = p.v.batch = p.o.batch = 0;
    p.cu_seqlens_q = cu_seqlens_q, p.cu_seqlens_k = cu_seqlens_k;
    p.total_q = total_q, p.total_k = total_k;
    return p;
  }

  // Where LSE[b, h, position] is (`token`: the position in the packed token dimension when the
  // lengths vary, total_q tokens in all).
  std::int64_t lse_offset(int b, int h, int position, int token, std::int64_t total_q) const {
    return variable() ? std::int64_t(h) * total_q + token : (std::int64_t(b) * heads + h) * seqlen_q + position;
  }
};

// The head dimensions the kernels take: multiples of 8 (16-byte rows of 16-bit values) up to 256.
inline constexpr int kMaxHeadDim = 256;

// What is wrong with p, and how to fix it (Status::success() where nothing is).
inline Status check(Problem const& p) {
  auto const s = [](std::int64_t v) { return std::to_string(v); };
  auto const bad = [](std::string m) { return Status::invalid_argument("attention: " + std::move(m)); };
  if (p.batch < 1 || p.heads < 1 || p.heads_kv < 1)
    return bad("batch = " + s(p.batch) + ", heads = " + s(p.heads) + ", heads_kv = " + s(p.heads_kv) + " must each be at least 1");
  if (p.heads % p.heads_kv != 0)
    return bad("heads = " + s(p.heads) + " is not a multiple of heads_kv = " + s(p.heads_kv) +
               " (each K/V head serves an equal group of query heads); use a heads_kv that divides heads");
  if (p.seqlen_q < 0 || p.seqlen_k < 0) return bad("seqlen_q = " + s(p.seqlen_q) + " and seqlen_k = " + s(p.seqlen_k) + " cannot be negative");
  for (auto [name, d] : {std::pair<char const*, int>{"head_dim", p.head_dim}, {"head_dim_v", p.head_dim_v}})
    if (d < 8 || d > kMaxHeadDim || d % 8 != 0)
      return Status::not_supported(std::string("attention: ") + name + " = " + s(d) + " is not a multiple of 8 from 8 to " + s(kMaxHeadDim) +
                                   " (rows of 16 bytes); pad the head dimension up to " + s(d < 8 ? 8 : (d + 7) / 8 * 8) +
                                   " with zeros (the scores do not change)");
  if (!std::isfinite(p.scale) || p.scale < 0.0f) return bad("scale = " + std::to_string(p.scale) + " must be finite and positive (0: 1 / sqrt(head_dim))");
  if ((p.cu_seqlens_q == nullptr) != (p.cu_seqlens_k == nullptr))
    return bad("cu_seqlens_q and cu_seqlens_k go together (variable lengths for both, or neither); pass both");
  if (p.variable() && (p.total_q < p.seqlen_q || p.total_k < p.seqlen_k || p.total_q >= (std::int64_t(1) << 31) ||
                       p.total_k >= (std::int64_t(1) << 31)))
    return bad("variable lengths: total_q = " + s(p.total_q) + " and total_k = " + s(p.total_k) +
               " (the packed tensors' tokens, cu_seqlens' last offsets) must hold the longest sequences (seqlen_q = " + s(p.seqlen_q) +
               ", seqlen_k = " + s(p.seqlen_k) + ") and be below 2^31; give Problem::variable_lengths the tensors' token counts");
  for (auto [name, st] : {std::pair<char const*, Strides>{"q", p.q}, {"k", p.k}, {"v", p.v}, {"o", p.o}})
    if (st.seq < 0 || st.head < 0 || st.batch < 0)
      return bad(std::string(name) + "'s strides (batch " + s(st.batch) + ", seq " + s(st.seq) + ", head " + s(st.head) +
                 ") cannot be negative; give each in elements, with the head dimension contiguous");
  return Status::success();
}

}  // namespace tessera::attention
