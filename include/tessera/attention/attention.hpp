// attention::Attention<Config>: fused attention at compile time, as gemm::Gemm is a GEMM:
// can_implement says what is wrong with the arguments and how to fix it, and run launches nothing
// then.
//
//   using Cfg = attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<128, 128>,
//                                 attention::Consumers<2>, attention::Stages<2>>;
//   attention::Attention<Cfg>::Arguments args{attention::Problem::dense(b, h, h_kv, sq, sk, 128, attention::Layout::kBSHD),
//                                             d_q, d_k, d_v, d_o};
//   args.lse = d_lse;                                   // optional: float [batch][heads][seqlen_q]
//   if (Status s = attention::Attention<Cfg>{}.run(args, nullptr, stream); !s) ...
//
// The problem's semantics, layouts and LSE: attention/problem.hpp; the masks and score stages:
// attention/masks.hpp, attention/score_chain.hpp; the kernels: attention/sm90/kernel.hpp (arch::Sm90)
// and attention/sm80/kernel.hpp (arch::Sm80, Warps<W>; 16-bit, fixed lengths), and under hipcc
// attention/gfx9/kernel.hpp (arch::Gfx90a / arch::Gfx940, Warps<W>; 16-bit, fixed lengths; compiled,
// not yet run on an AMD GPU).
// tessera-header: gpu-runtime
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "tessera/attention/config.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/status.hpp"
#if defined(TESSERA_HIP)
#  include "tessera/attention/gfx9/launch.hpp"
#else
#  include <cuda_runtime.h>

#  include "tessera/arch/sm90/kernel_attributes.hpp"
#  include "tessera/attention/sm80/launch.hpp"
#  include "tessera/attention/sm90/kernel.hpp"
#endif

namespace tessera::attention {

template <class Cfg>
class Attention {
 public:
  using Config = Cfg;
  using E = typename Cfg::Element;
  using Chain = typename Cfg::Chain;
#if defined(TESSERA_HIP)
  static_assert(Cfg::gfx9, "attention::Attention: under hipcc the kernel is the gfx9 one; use arch::Gfx90a or arch::Gfx940 (or nvcc)");
#else
  static_assert(!Cfg::gfx9, "attention::Attention: an arch::Gfx90a / arch::Gfx940 Config is built with hipcc; use arch::Sm80 or "
                            "arch::Sm90 under nvcc");
#endif

  struct Arguments {
    Problem problem;
    E const* q = nullptr;
    E const* k = nullptr;
    E const* v = nullptr;
    typename Cfg::Output* o = nullptr;  // (fp8 Q, K, V: bfloat16_t)
    float* lse = nullptr;  // optional
    Chain chain{};         // the masks' and score stages' parameters
    // fp8: the per-tensor scales (a value is its stored e4m3 times its tensor's scale); 1 otherwise.
    float scale_q = 1.0f, scale_k = 1.0f, scale_v = 1.0f;
  };

  static std::size_t workspace_size(Arguments const&) { return 0; }

  static Status can_implement(Arguments const& a) {
    Problem const& p = a.problem;
    TESSERA_RETURN_IF_ERROR(check(p));
    TESSERA_RETURN_IF_ERROR(a.chain.check(p));
    auto const s = [](std::int64_t v) { return std::to_string(v); };
    auto const fail = [](std::string m) { return Status::not_supported("attention::Attention: " + std::move(m)); };
    if (p.head_dim != Cfg::D || p.head_dim_v != Cfg::Dv)
      return fail("the problem's head dimensions (" + s(p.head_dim) + ", " + s(p.head_dim_v) + ") are not the Config's HeadDim<" + s(Cfg::D) +
                  ", " + s(Cfg::Dv) + ">; use a Config of the problem's head dimensions");
    if (a.q == nullptr || a.k == nullptr || a.v == nullptr || a.o == nullptr)
      return Status::invalid_argument("attention::Attention: q, k, v and o must be device pointers (one is null)");
    auto const misaligned = [](void const* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0; };
    bool strides_ok = true;
    auto const aligned = [](Strides const& st, std::int64_t n) { return st.seq % n == 0 && st.head % n == 0 && st.batch % n == 0; };
    for (Strides const& st : {p.q, p.k, p.v}) strides_ok = strides_ok && aligned(st, 16 / std::int64_t(sizeof(E)));
    strides_ok = strides_ok && aligned(p.o, 16 / std::int64_t(sizeof(typename Cfg::Output)));
    if (misaligned(a.q) || misaligned(a.k) || misaligned(a.v) || misaligned(a.o) || !strides_ok)
      return Status::misaligned("attention::Attention: q, k, v and o must be 16-byte aligned and their strides whole 16 bytes (" +
                                s(16 / std::int64_t(sizeof(E))) + " elements); allocate with cudaMalloc and pad the rows");
    float const scales[3] = {a.scale_q, a.scale_k, a.scale_v};
    for (float x : scales) {
      if (!Cfg::fp8 && x != 1.0f)
        return Status::invalid_argument("attention::Attention: scale_q, scale_k and scale_v are fp8's per-tensor scales; leave them 1 "
                                        "for 16-bit tensors (the softmax scale is Problem::scale)");
      if (!(std::isfinite(x) && x > 0.0f))
        return Status::invalid_argument("attention::Attention: scale_q = " + std::to_string(a.scale_q) + ", scale_k = " +
                                        std::to_string(a.scale_k) + ", scale_v = " + std::to_string(a.scale_v) +
                                        " must be finite and positive");
    }
#if defined(TESSERA_HIP)
    return gfx9::Launch<Cfg>::can_implement(p);
#else
    if constexpr (Cfg::sm80) return sm80::Launch<Cfg>::can_implement(p);
    else return can_implement_sm90(a);
#endif
  }

  Status run(Arguments const& a, void* = nullptr, runtime::Stream stream = nullptr) const {
#if defined(TESSERA_HIP)
    TESSERA_RETURN_IF_ERROR(can_implement(a));
    return gfx9::Launch<Cfg>::run(a.problem, a.q, a.k, a.v, a.o, a.lse, a.chain, stream);
#else
    if constexpr (Cfg::sm80) {
      TESSERA_RETURN_IF_ERROR(can_implement(a));
      return sm80::Launch<Cfg>::run(a.problem, a.q, a.k, a.v, a.o, a.lse, a.chain, stream);
    } else {
      return run_sm90(a, stream);
    }
#endif
  }

#if !defined(TESSERA_HIP)
 private:
  // The Hopper kernel's device checks, after the problem's and the arguments'.
  static Status can_implement_sm90(Arguments const& a) {
    Problem const& p = a.problem;
    auto const s = [](std::int64_t v) { return std::to_string(v); };
    auto const fail = [](std::string m) { return Status::not_supported("attention::Attention: " + std::move(m)); };
    int device = 0, major = 0;
    if (runtime::current_device(device) != runtime::kSuccess || (major = runtime::compute_capability_major(device)) == 0)
      return Status::device_error("attention::Attention: no CUDA device is available; run on a machine with an NVIDIA GPU");
    if (major != 9) return fail("the Hopper kernel runs on compute capability 9.0 only (this device is " + s(major) + ".x)");
    cudaFuncAttributes attributes{};
    if (cudaFuncGetAttributes(&attributes, sm90::attention_kernel<Cfg>) != cudaSuccess || !arch::sm90::built_for_sm90a(attributes)) {
      cudaGetLastError();
      return fail("this binary holds no sm_90a code of the attention kernel; build with CMAKE_CUDA_ARCHITECTURES=90a");
    }
    typename sm90::Loader<Cfg>::Params probe{};
    return sm90::Loader<Cfg>::make(p, a.q, a.k, a.v, a.o, probe);
  }

  Status run_sm90(Arguments const& a, cudaStream_t stream) const {
    TESSERA_RETURN_IF_ERROR(can_implement(a));
    Problem const& p = a.problem;
    sm90::Params<Cfg> params{};
    TESSERA_RETURN_IF_ERROR(sm90::Loader<Cfg>::make(p, a.q, a.k, a.v, a.o, params.load));
    params.chain = a.chain;
    params.batch = p.batch, params.heads = p.heads, params.group = p.group();
    params.q_len = p.seqlen_q, params.k_len = p.seqlen_k;
    params.q_blocks = (p.seqlen_q + Cfg::BQ - 1) / Cfg::BQ;
    params.cu_q = p.cu_seqlens_q, params.cu_k = p.cu_seqlens_k, params.total_q = p.total_q, params.total_k = p.total_k;
    params.scale = p.softmax_scale() * a.scale_q * a.scale_k;
    params.v_scale = a.scale_v;
    params.o_strides = p.o;
    params.o = a.o;
    params.lse = a.lse;
    if (params.tiles() == 0) return Status::success();  // no query: nothing to write
    int device = 0;
    (void)runtime::current_device(device);
    auto kernel = sm90::attention_kernel<Cfg>;
    constexpr int smem = sm90::Kernel<Cfg>::smem_bytes;
    cudaError_t err = arch::sm90::allow_smem_once(kernel, device, smem);
    if (err == cudaSuccess) {
      // (Variable lengths: at most a tile a query block of the longest sequence, and a tile a BQ
      // tokens and a sequence.)
      std::int64_t tiles = params.tiles();
      if (p.variable()) tiles = std::min(tiles, std::int64_t(p.heads) * (p.total_q / Cfg::BQ + p.batch));
      unsigned const blocks = unsigned(std::min<std::int64_t>(tiles, std::max(1, runtime::multiprocessors(device))));
      kernel<<<blocks, Cfg::threads, smem, stream>>>(params);
      err = cudaGetLastError();
    }
    if (err != cudaSuccess) return Status::device_error(std::string("attention::Attention: launch failed: ") + cudaGetErrorString(err));
    return Status::success();
  }
#endif
};

}  // namespace tessera::attention
