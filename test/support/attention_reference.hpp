// The attention tests' host reference: softmax over each query's full row of scores, in double,
// through the same score chain the kernel runs (on the host's copies of its parameters).
//
//   auto const lengths = attention_lengths(p, cu_q, cu_k);    // per batch entry (host copies)
//   AttentionResult r = attention_reference(p, lengths, q.data(), k.data(), v.data(), chain);
//   r.o[o_offset + j], r.lse[...]                            // O as the problem's o strides lay it out
//
// A query whose every score is masked gets O = 0 and LSE = -infinity.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tessera/attention/coord.hpp"
#include "tessera/attention/problem.hpp"

namespace tessera::test {

// Each batch entry's sequences: where they start in the token dimension (0 with fixed lengths,
// whose batch stride places them) and how long they are.
struct AttentionLengths {
  std::vector<int> q_start, q_len, k_start, k_len;
  std::int64_t total_q = 0;  // tokens of Q in all
};

// cu_q / cu_k: the host copies of cu_seqlens_q / cu_seqlens_k (batch + 1 offsets), or empty for
// fixed lengths.
inline AttentionLengths attention_lengths(attention::Problem const& p, std::vector<int> const& cu_q = {},
                                          std::vector<int> const& cu_k = {}) {
  AttentionLengths l;
  for (int b = 0; b < p.batch; ++b) {
    bool const var = !cu_q.empty();
    l.q_start.push_back(var ? cu_q[std::size_t(b)] : 0);
    l.k_start.push_back(var ? cu_k[std::size_t(b)] : 0);
    l.q_len.push_back(var ? cu_q[std::size_t(b) + 1] - cu_q[std::size_t(b)] : p.seqlen_q);
    l.k_len.push_back(var ? cu_k[std::size_t(b) + 1] - cu_k[std::size_t(b)] : p.seqlen_k);
    l.total_q += l.q_len.back();
  }
  return l;
}

struct AttentionResult {
  std::vector<double> o;    // at the o strides' offsets (other elements 0)
  std::vector<double> lse;  // Problem::lse_offset
  std::vector<double> mag;  // per output element: sum over keys of p |v| (the accumulation's scale)
};

template <class T>
double as_double(T const& x) {
  if constexpr (requires { x.to_float(); }) return double(x.to_float());
  else return double(x);
}

// o_elements: the size of O's buffer (its largest offset + head_dim_v).
template <class T, class Chain>
AttentionResult attention_reference(attention::Problem const& p, AttentionLengths const& l, T const* q, T const* k, T const* v,
                                    Chain const& chain, std::size_t o_elements) {
  AttentionResult r;
  r.o.assign(o_elements, 0.0);
  r.mag.assign(o_elements, 0.0);
  r.lse.assign(std::size_t(p.variable() ? std::int64_t(p.heads) * l.total_q : std::int64_t(p.batch) * p.heads * p.seqlen_q),
               -std::numeric_limits<double>::infinity());
  double const scale = p.softmax_scale();
  std::int64_t token0 = 0;
  for (int b = 0; b < p.batch; ++b) {
    int const sq = l.q_len[std::size_t(b)], sk = l.k_len[std::size_t(b)];
    int const q0 = l.q_start[std::size_t(b)], k0 = l.k_start[std::size_t(b)];
    for (int h = 0; h < p.heads; ++h) {
      int const hk = h / p.group();
      std::vector<double> s(std::size_t(sk > 0 ? sk : 1));
      for (int i = 0; i < sq; ++i) {
        T const* qi = q + p.q.offset(b, q0 + i, h);
        double top = -std::numeric_limits<double>::infinity();
        for (int j = 0; j < sk; ++j) {
          T const* kj = k + p.k.offset(b, k0 + j, hk);
          double dot = 0;
          for (int d = 0; d < p.head_dim; ++d) dot += as_double(qi[d]) * as_double(kj[d]);
          // The chain runs in float in the kernel: the reference gives it the same float input.
          float const x = float(dot * scale);
          s[std::size_t(j)] = double(chain.score(x, attention::Coord{b, h, i, j, sq, sk}));
          if (s[std::size_t(j)] > top) top = s[std::size_t(j)];
        }
        std::int64_t const oi = p.o.offset(b, q0 + i, h);
        if (top == -std::numeric_limits<double>::infinity()) continue;  // every key masked (or none): O = 0, LSE = -inf
        double sum = 0;
        for (int j = 0; j < sk; ++j) sum += std::exp(s[std::size_t(j)] - top);
        r.lse[std::size_t(p.lse_offset(b, h, i, int(token0 + i), l.total_q))] = top + std::log(sum);
        for (int j = 0; j < sk; ++j) {
          double const w = std::exp(s[std::size_t(j)] - top) / sum;
          T const* vj = v + p.v.offset(b, k0 + j, hk);
          for (int d = 0; d < p.head_dim_v; ++d) {
            r.o[std::size_t(oi + d)] += w * as_double(vj[d]);
            r.mag[std::size_t(oi + d)] += w * std::fabs(as_double(vj[d]));
          }
        }
      }
    }
    token0 += sq;
  }
  return r;
}

}  // namespace tessera::test
