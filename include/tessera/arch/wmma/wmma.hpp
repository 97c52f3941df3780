// nvcuda::wmma 16x16x16 with f16 or bf16 inputs and f32 accumulators: the portable atom, whose
// register layout is opaque (load, mma and store go through the fragment API).
#pragma once

#include "tessera/arch/arch.hpp"
#include "tessera/core/numeric_types.hpp"

#if defined(TESSERA_CUDA)
#  include <mma.h>
#endif

namespace tessera::arch {

#if defined(TESSERA_CUDA)

namespace detail {
template <class T>
struct WmmaElement;
template <>
struct WmmaElement<tessera::half_t> {
  using type = ::__half;
};
template <>
struct WmmaElement<tessera::bfloat16_t> {
  using type = ::__nv_bfloat16;
};
}  // namespace detail

// A 16x16 row-major tile of A times a 16x16 column-major tile of B, accumulated in f32.
template <class T>
struct Wmma_16x16x16_F32F32 {
  static_assert(std::is_same_v<T, tessera::half_t> || std::is_same_v<T, tessera::bfloat16_t>,
                "Wmma_16x16x16_F32F32: inputs must be tessera::half_t or tessera::bfloat16_t; use one of those");
  using Native = typename detail::WmmaElement<T>::type;
  using FragA = nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, Native, nvcuda::wmma::row_major>;
  using FragB = nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, Native, nvcuda::wmma::col_major>;
  using FragC = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float>;

  TESSERA_DEVICE static void load_a(FragA& a, T const* p, unsigned ld) {
#if defined(TESSERA_ARCH_WMMA)
    nvcuda::wmma::load_matrix_sync(a, reinterpret_cast<Native const*>(p), ld);
#else
    (void)a, (void)p, (void)ld;
    TESSERA_UNREACHABLE("wmma needs sm_80 or later: build for sm_80/sm_90a");
#endif
  }
  TESSERA_DEVICE static void load_b(FragB& b, T const* p, unsigned ld) {
#if defined(TESSERA_ARCH_WMMA)
    nvcuda::wmma::load_matrix_sync(b, reinterpret_cast<Native const*>(p), ld);
#else
    (void)b, (void)p, (void)ld;
    TESSERA_UNREACHABLE("wmma needs sm_80 or later: build for sm_80/sm_90a");
#endif
  }
  TESSERA_DEVICE static void fill(FragC& c, float v) {
#if defined(TESSERA_ARCH_WMMA)
    nvcuda::wmma::fill_fragment(c, v);
#else
    (void)c, (void)v;
    TESSERA_UNREACHABLE("wmma needs sm_80 or later: build for sm_80/sm_90a");
#endif
  }
  TESSERA_DEVICE static void mma(FragC& d, FragA const& a, FragB const& b, FragC const& c) {
#if defined(TESSERA_ARCH_WMMA)
    nvcuda::wmma::mma_sync(d, a, b, c);
#else
    (void)d, (void)a, (void)b, (void)c;
    TESSERA_UNREACHABLE("wmma needs sm_80 or later: build for sm_80/sm_90a");
#endif
  }
  // Stores the 16x16 f32 accumulators row-major with leading dimension ld.
  TESSERA_DEVICE static void store_c(float* p, FragC const& c, unsigned ld) {
#if defined(TESSERA_ARCH_WMMA)
    nvcuda::wmma::store_matrix_sync(p, c, ld, nvcuda::wmma::mem_row_major);
#else
    (void)p, (void)c, (void)ld;
    TESSERA_UNREACHABLE("wmma needs sm_80 or later: build for sm_80/sm_90a");
#endif
  }
};

#endif  // TESSERA_CUDA

}  // namespace tessera::arch
