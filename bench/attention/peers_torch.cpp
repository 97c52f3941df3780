// peers.hpp with libtorch: ATen's attention ops on from_blob views of the bench's buffers (no
// copies: BSHD and BHSD are strides), on the bench's stream. Compiled by the host compiler.
//   cuDNN:  at::_scaled_dot_product_cudnn_attention on (b, h, s, d) views; variable lengths through
//           at::_cudnn_attention_forward on packed (tokens, h, d) views, where this Torch has it.
//   FA2:    at::_flash_attention_forward on (b, s, h, d) or packed views: the call
//           at::_scaled_dot_product_flash_attention makes after transposing its (b, h, s, d)
//           arguments, and the one that takes cu_seqlens.
// Both take h a multiple of hk as it is (GQA): K and V are never expanded, which would change the
// peers' work.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#if __has_include(<torch/version.h>)
#include <torch/version.h>
#endif
#if __has_include(<ATen/ops/_cudnn_attention_forward.h>)
#define TESSERA_TORCH_CUDNN_VARLEN 1
#else
#define TESSERA_TORCH_CUDNN_VARLEN 0
#endif

#include <optional>
#include <stdexcept>
#include <tuple>

#include "peers.hpp"

namespace tessera::bench::attention {
namespace {

// Operand x of p as a tensor over ptr: packed (tokens, heads, dim) when variable-length, else
// (b, heads, tokens, dim) when heads_first (PyTorch's SDPA order) or (b, tokens, heads, dim).
at::Tensor view(Problem const& p, Operand x, void const* ptr, bool heads_first) {
  Shape const s = shape(p, x);
  auto const options = at::TensorOptions()
                           .dtype(p.dtype == Dtype::kBf16 ? at::kBFloat16 : at::kHalf)
                           .device(at::kCUDA, c10::cuda::current_device());
  void* data = const_cast<void*>(ptr);
  if (p.varlen())
    return at::from_blob(data, {s.elements / (std::int64_t(s.heads) * s.dim), s.heads, s.dim}, {s.token_stride, s.head_stride, 1},
                         options);
  if (heads_first)
    return at::from_blob(data, {p.b, s.heads, s.tokens, s.dim}, {s.batch_stride, s.head_stride, s.token_stride, 1}, options);
  return at::from_blob(data, {p.b, s.tokens, s.heads, s.dim}, {s.batch_stride, s.token_stride, s.head_stride, 1}, options);
}

at::Tensor prefix_sums(int const* cu, int b) {
  return at::from_blob(const_cast<int*>(cu), {b + 1}, at::TensorOptions().dtype(at::kInt).device(at::kCUDA, c10::cuda::current_device()));
}

// One call of the peer's op; returns its output, laid out as view(p, kO, ·, heads_first) says.
at::Tensor run_op(Peer peer, Problem const& p, Buffers const& buf, bool heads_first) {
  at::Tensor const q = view(p, Operand::kQ, buf.q, heads_first), k = view(p, Operand::kK, buf.k, heads_first),
                   v = view(p, Operand::kV, buf.v, heads_first);
  double const scale = p.softmax_scale();
  std::optional<at::Tensor> cu_q, cu_k;
  if (p.varlen()) {
    cu_q = prefix_sums(p.cu_seqlens_q, p.b);
    cu_k = prefix_sums(p.cu_seqlens_k, p.b);
  }
  if (peer == Peer::kFlash2)
    return std::get<0>(at::_flash_attention_forward(q, k, v, cu_q, cu_k, p.sq, p.sk, 0.0, p.causal, false, scale));
  if (!p.varlen())
    return std::get<0>(at::_scaled_dot_product_cudnn_attention(q, k, v, std::nullopt, p.lse, 0.0, p.causal, false, scale));
#if TESSERA_TORCH_CUDNN_VARLEN
  return std::get<0>(at::_cudnn_attention_forward(q, k, v, std::nullopt, cu_q, cu_k, p.sq, p.sk, p.lse, 0.0, p.causal, false, scale));
#else
  throw std::runtime_error("this Torch has no at::_cudnn_attention_forward (cuDNN with variable lengths)");
#endif
}

}  // namespace

bool peer_available(Peer peer, Problem const& p, std::string* why) {
  if (peer == Peer::kCudnn && p.varlen() && !TESSERA_TORCH_CUDNN_VARLEN) {
    *why = "this Torch has no at::_cudnn_attention_forward (cuDNN with variable lengths)";
    return false;
  }
  return true;
}

bool peer_run(Peer peer, Problem const& p, Buffers const& buf, cudaStream_t stream, std::string* why) {
  try {
    c10::cuda::CUDAStreamGuard const guard(c10::cuda::getStreamFromExternal(stream, c10::cuda::current_device()));
    // cuDNN's SDPA op takes (b, h, s, d) tensors, FlashAttention's (b, s, h, d): the same memory.
    bool const heads_first = peer == Peer::kCudnn;
    at::Tensor const o = run_op(peer, p, buf, heads_first);
    if (buf.o != nullptr) view(p, Operand::kO, buf.o, heads_first).copy_(o);
    return true;
  } catch (c10::Error const& e) {
    *why = e.what_without_backtrace();
  } catch (std::exception const& e) {
    *why = e.what();
  }
  return false;
}

std::string peer_versions() {
#ifdef TORCH_VERSION
  std::string const torch = TORCH_VERSION;
#else
  std::string const torch = "(unknown)";
#endif
  return "torch " + torch + ", cuDNN " + std::to_string(at::detail::getCUDAHooks().versionCuDNN());
}

}  // namespace tessera::bench::attention
