// The library's mask and score stages (attention/score_chain.hpp has the stage contract).
//
//   Causal<TopLeft>           query q sees keys k <= q
//   Causal<BottomRight>       query q sees keys k <= q + k_len - q_len (the last query sees every
//                             key: the alignment of a prompt's continuation, FlashAttention's)
//   SlidingWindow<A>{l, r}    keys within [q' - l, q' + r], q' the aligned position (l or r < 0:
//                             no bound on that side); {-1, 0} is Causal<A>
//   Alibi<A>{slopes}          x - slopes[head] |k - q'| (one slope per query head; sequences
//                             below 2^22 keys and queries)
//   Softcap{cap}              cap tanh(x / cap), before the masks (a masked score stays masked)
//
// Every stage keeps -infinity, so any order of the chain keeps a masked score masked.
#pragma once

#include <cmath>
#include <string>

#include "tessera/attention/coord.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/core/config.hpp"
#include "tessera/core/status.hpp"
#include "tessera/epilogue/activations.hpp"  // tanh_f

namespace tessera::attention {

// Which query position a key position is aligned with when the lengths differ.
struct TopLeft {
  TESSERA_HD static constexpr int offset(int, int) { return 0; }
};
struct BottomRight {
  TESSERA_HD static constexpr int offset(int q_len, int k_len) { return k_len - q_len; }
};

namespace detail {
TESSERA_HD constexpr float masked() { return -__builtin_huge_valf(); }
TESSERA_HD constexpr int min_i(int a, int b) { return a < b ? a : b; }
TESSERA_HD constexpr int max_i(int a, int b) { return a > b ? a : b; }
}  // namespace detail

// The largest window bound the masks take (positions are ints: a bound past it would overflow).
inline constexpr int kMaxWindow = 1 << 30;

template <class Align = TopLeft>
struct SlidingWindow {
  int left = -1, right = -1;  // keys before and after the aligned position (< 0: unbounded)
  static constexpr bool masks = true, modifies = false, exact_keys = true;

  Status check() const {
    if (left > kMaxWindow || right > kMaxWindow)
      return Status::invalid_argument("attention::SlidingWindow: left = " + std::to_string(left) + " and right = " + std::to_string(right) +
                                      " must be at most 2^30; give -1 for an unbounded side");
    return Status::success();
  }

  TESSERA_HD float score(float x, Coord const& c) const {
    int const at = c.q + Align::offset(c.q_len, c.k_len);
    bool const in = (left < 0 || c.k >= at - left) && (right < 0 || c.k <= at + right);
    return in ? x : detail::masked();
  }
  TESSERA_HD BlockKind block(Block const& b) const {
    int const off = Align::offset(b.q_len, b.k_len);
    int const first = b.q0 + off, last = b.q1 - 1 + off;  // the block's aligned positions
    if ((right >= 0 && b.k0 > last + right) || (left >= 0 && b.k1 - 1 < first - left)) return BlockKind::kSkip;
    bool const full = (right < 0 || b.k1 - 1 <= first + right) && (left < 0 || b.k0 >= last - left);
    return full ? BlockKind::kFull : BlockKind::kPartial;
  }
  TESSERA_HD KeyRange keys(Block const& b) const {
    int const off = Align::offset(b.q_len, b.k_len);
    int const lo = left < 0 ? 0 : detail::max_i(0, b.q0 + off - left);
    int const hi = right < 0 ? b.k_len : detail::min_i(b.k_len, b.q1 + off + right);
    return {lo, hi};
  }
};

template <class Align = TopLeft>
struct Causal {
  static constexpr bool masks = true, modifies = false, exact_keys = true;
  TESSERA_HD float score(float x, Coord const& c) const { return SlidingWindow<Align>{-1, 0}.score(x, c); }
  TESSERA_HD BlockKind block(Block const& b) const { return SlidingWindow<Align>{-1, 0}.block(b); }
  TESSERA_HD KeyRange keys(Block const& b) const { return SlidingWindow<Align>{-1, 0}.keys(b); }
};

// ALiBi (Press et al.): a linear penalty on the distance to the aligned position. `slopes` holds
// one float per query head, in the memory the kernel runs in (device memory for a kernel).
//
// The distance is an int, and float(d) is an I2F a score, an instruction of the special-function
// unit (XU) that the softmax's exp2 keeps busy. Below 2^22, 2^23 + 2^22 + d is a float of
// exponent 23 whose low bits are d + 2^22: its bits are an integer add away, and subtracting
// 2^23 + 2^22 leaves d exactly, on the integer and FMA pipes (2 to 5 % faster on the H100, hd 128;
// docs/performance.md). check(Problem) holds the lengths below 2^22, where every |d| is.
template <class Align = BottomRight>
struct Alibi {
  float const* slopes = nullptr;
  static constexpr bool masks = false, modifies = true;
  // The longest sequences (queries and keys) the distances stay exact for.
  static constexpr int kMaxLength = (1 << 22) - 1;

  Status check() const {
    return slopes != nullptr ? Status::success()
                             : Status::invalid_argument("attention::Alibi: slopes is null; give a device pointer to a slope per query head");
  }
  Status check(Problem const& p) const {
    if (p.seqlen_q > kMaxLength || p.seqlen_k > kMaxLength)
      return Status::invalid_argument("attention::Alibi: seqlen_q = " + std::to_string(p.seqlen_q) + ", seqlen_k = " +
                                      std::to_string(p.seqlen_k) + ": both must be below 2^22 (ALiBi's distances are exact below it); for "
                                      "longer sequences write a stage of your own with float(k - q)");
    return Status::success();
  }
  TESSERA_HD float score(float x, Coord const& c) const {
    int const d = c.k - (c.q + Align::offset(c.q_len, c.k_len));  // |d| < 2^22: check(Problem)
    float const dist = __builtin_bit_cast(float, 0x4B400000 + d) - 12582912.0f;  // (2^23 + 2^22 + d) - (2^23 + 2^22)
    return x - slopes[c.head] * __builtin_fabsf(dist);
  }
};

// Gemma's and Grok's logit soft-capping.
struct Softcap {
  float cap = 0.0f;  // > 0
  static constexpr bool masks = false, modifies = true;
  Status check() const {
    return std::isfinite(cap) && cap > 0.0f
               ? Status::success()
               : Status::invalid_argument("attention::Softcap: cap = " + std::to_string(cap) + " must be finite and positive (scores become "
                                          "cap tanh(x / cap)); give Softcap{cap} with cap > 0, e.g. 30 or 50");
  }
  TESSERA_HD float score(float x, Coord const&) const {
    // x times 1 / cap: the reciprocal is the same for every score, so the compiler computes it
    // once a block. (An IEEE division a score, a reciprocal with its slow-path branches each, made
    // the kernel 4.2 x slower than without the cap; __fdividef, a MUFU reciprocal a score beside
    // tanh's and exp2's, 3.1 x.)
    float const y = cap * epilogue::detail::tanh_f(x * (1.0f / cap));
    return x == detail::masked() ? x : y;
  }
};

}  // namespace tessera::attention
