// The attention bench's problems and its peers: cuDNN's fused attention and FlashAttention-2, as
// PyTorch ships them, run on the bench's own device buffers and stream. No Torch here: the bench's
// CUDA source includes this header, and peers_torch.cpp (compiled by the host compiler, since nvcc
// is slow on ATen's headers) implements the peers with libtorch. Our kernel's rows use the same
// Problem, buffers and FLOP count.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::bench::attention {

enum class Peer { kCudnn, kFlash2 };
enum class Dtype { kBf16, kF16 };
// How a fixed-length operand lies in memory: BSHD (batch, token, head, dim: FlashAttention's and
// the LLMs' order) or BHSD (batch, head, token, dim). Variable-length operands are packed
// (token, head, dim), the sequences one after the other.
enum class Layout { kBSHD, kBHSD };

// O = softmax(scale Q Kᵀ, causal mask if asked) V for b sequences of sq queries and sk keys: h query
// heads, hk KV heads (h a multiple of hk: GQA), head dim d for Q and K, dv for V and O. The causal
// mask is the square one (sq == sk in every problem of the bench, where top-left and bottom-right
// alignment agree).
struct Problem {
  int b = 1, h = 16, hk = 16, sq = 1024, sk = 1024, d = 128, dv = 128;
  Dtype dtype = Dtype::kBf16;
  Layout layout = Layout::kBSHD;
  bool causal = false;
  // Whether the log-sum-exp is computed too (cuDNN then runs its training graph; FlashAttention-2
  // always writes it). It stays in the peer's own tensor.
  bool lse = false;
  float scale = 0;  // 0: 1 / sqrt(d)
  // Variable lengths: the b sequences' lengths (host) and their prefix sums, b + 1 int32 values on
  // the device; sq and sk are then the longest. Empty for fixed-length problems.
  std::vector<int> seqlens_q, seqlens_k;
  int const* cu_seqlens_q = nullptr;
  int const* cu_seqlens_k = nullptr;

  bool varlen() const { return !seqlens_q.empty(); }
  float softmax_scale() const { return scale != 0 ? scale : 1.0f / std::sqrt(float(d)); }
  std::int64_t tokens_q() const { return varlen() ? sum(seqlens_q) : std::int64_t(b) * sq; }
  std::int64_t tokens_k() const { return varlen() ? sum(seqlens_k) : std::int64_t(b) * sk; }

  // FlashAttention's count: 2 FLOP per multiply-add of Q·Kᵀ (d) and of P·V (dv) over every
  // (query, key) pair, halved when causal: 4 b h sq sk d when dv = d.
  double flops() const {
    double pairs = 0;
    for (int i = 0; i < b; ++i) pairs += double(varlen() ? seqlens_q[i] : sq) * double(varlen() ? seqlens_k[i] : sk);
    return 2.0 * double(h) * pairs * double(d + dv) * (causal ? 0.5 : 1.0);
  }

 private:
  static std::int64_t sum(std::vector<int> const& v) {
    std::int64_t s = 0;
    for (int x : v) s += x;
    return s;
  }
};

enum class Operand { kQ, kK, kV, kO };

// An operand's extents and element strides; its head dim is contiguous.
struct Shape {
  int heads, tokens, dim;  // tokens per sequence (the longest when variable-length)
  std::int64_t batch_stride, token_stride, head_stride, elements;
};

inline Shape shape(Problem const& p, Operand x) {
  bool const query_side = x == Operand::kQ || x == Operand::kO;
  Shape s{};
  s.heads = query_side ? p.h : p.hk;
  s.tokens = query_side ? p.sq : p.sk;
  s.dim = x == Operand::kQ || x == Operand::kK ? p.d : p.dv;
  std::int64_t const row = std::int64_t(s.heads) * s.dim;
  if (p.varlen()) {
    s.batch_stride = 0;
    s.token_stride = row;
    s.head_stride = s.dim;
    s.elements = (query_side ? p.tokens_q() : p.tokens_k()) * row;
  } else {
    s.batch_stride = row * s.tokens;
    s.token_stride = p.layout == Layout::kBSHD ? row : s.dim;
    s.head_stride = p.layout == Layout::kBSHD ? s.dim : std::int64_t(s.tokens) * s.dim;
    s.elements = s.batch_stride * p.b;
  }
  return s;
}

// The device buffers of a problem, laid out as shape() says; o may be null.
struct Buffers {
  void const *q = nullptr, *k = nullptr, *v = nullptr;
  void* o = nullptr;
};

// Whether this build can run `peer` on `p` at all (the op exists in this Torch); if not, *why says
// so. A peer may still refuse a problem at run time (peer_run says why).
bool peer_available(Peer peer, Problem const& p, std::string* why);

// Runs `peer` on `p` on `stream`: one call of the op, its output in a tensor of Torch's caching
// allocator; when buf.o is not null, that output is then copied into it (outside the timed runs:
// the copy is not the peer's work). Returns false with *why set where the op refuses the problem.
bool peer_run(Peer peer, Problem const& p, Buffers const& buf, cudaStream_t stream, std::string* why);

// "torch <version>, cuDNN <version>": what the peers are, for the benchmark context.
std::string peer_versions();

}  // namespace tessera::bench::attention
