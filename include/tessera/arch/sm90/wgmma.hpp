// wgmma.mma_async (sm_90a): a warpgroup (4 consecutive warps, the first one's index a multiple
// of 4) multiplies a 64 x K tile of A by a K x N tile of B into 64 x N accumulators held in its
// 128 threads' registers. B is read from shared memory through a matrix descriptor
// (arch/sm90/wgmma_desc.hpp); A from shared memory (SS) or from registers (RS). The instruction
// runs asynchronously: issue it after wgmma_fence(), close a batch with wgmma_commit_group() and
// wait with wgmma_wait_group<n>() (at most n batches still in flight) before the accumulators or
// the shared tiles are touched.
//
//   using Mma = Wgmma<128, bfloat16, bfloat16, float>;     // m64n128k16, f32 accumulators
//   float d[Mma::regs];
//   wgmma_fence();
//   Mma::ss_first(d, desc_a, desc_b);                      // d = A B: d's old values unread
//   Mma::ss(d, desc_a2, desc_b2, /*accumulate=*/true);     // the next k-steps: d += A B
//   wgmma_commit_group();
//   wgmma_wait_group<0>();
//
// Types: f16 and bf16 with f32 accumulators and f16 with f16 accumulators (K = 16, either operand
// K-major or MN-major); tf32 (K = 8) with f32; e4m3/e5m2 in any pairing (K = 32) with f32 or f16.
// tf32 and 8-bit operands must be K-major. Accumulator registers per thread: N / 2 for f32, N / 4
// (each two f16) for f16.
//
// Accumulator layout (as mma.sync's m16n8 C fragment, repeated): warp w of the warpgroup holds
// rows 16w .. 16w + 15; lane l holds, for each 8-column group j, d[4j + 0..1] at row 16w + l / 4,
// columns 8j + 2 (l % 4) + 0..1, and d[4j + 2..3] at row 16w + l / 4 + 8 (f32; the f16 form packs
// each pair in one register).
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/arch/arch.hpp"
#include "tessera/arch/sm90/wgmma_operands.hpp"
#include "tessera/core/numeric_types.hpp"

// The fallback bodies (targets without the instructions) leave the operands unused.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tessera::arch::sm90 {

#if defined(TESSERA_ARCH_SM90A)
#  define TESSERA_WGMMA_BODY(...) asm volatile(__VA_ARGS__)
#else
#  define TESSERA_WGMMA_BODY(...) TESSERA_UNREACHABLE("wgmma needs sm_90a: build with -gencode=arch=compute_90a,code=sm_90a")
#endif

// Orders this thread's earlier register and shared-memory accesses before the next wgmma reads
// them (required before the first wgmma of a batch and after the accumulators were touched).
TESSERA_DEVICE inline void wgmma_fence() { TESSERA_WGMMA_BODY("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// Makes this thread's ordinary shared-memory writes (st.shared, stmatrix) visible to the async
// proxy (wgmma operand reads, TMA stores) once a barrier follows: call it in each writing thread.
TESSERA_DEVICE inline void fence_proxy_async_shared() {
  TESSERA_WGMMA_BODY("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Closes the batch of wgmma issued since the last commit.
TESSERA_DEVICE inline void wgmma_commit_group() { TESSERA_WGMMA_BODY("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

// Waits until at most `Pending` committed batches are still in flight.
template <int Pending>
TESSERA_DEVICE inline void wgmma_wait_group() {
  static_assert(Pending >= 0 && Pending <= 7, "arch::sm90::wgmma_wait_group: the pending count is 0 to 7; use one of those");
  TESSERA_WGMMA_BODY("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}

// Keeps the compiler from moving accesses of the accumulators across the asynchronous wgmma
// (call on them after issuing and after waiting).
template <class T, int R>
TESSERA_DEVICE inline void wgmma_fence_operands(T (&d)[R]) {
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA)  // (a compiler barrier, no instruction: nothing to trap)
TESSERA_UNROLL
  for (int i = 0; i < R; ++i) {
    if constexpr (std::is_same_v<T, float>) {
      asm volatile("" : "+f"(d[i])::"memory");
    } else {
      asm volatile("" : "+r"(d[i])::"memory");
    }
  }
#endif
}

enum class Major : std::uint8_t { K, MN };  // which extent of an operand is contiguous

namespace detail {

// One member template per instruction form; `SHAPE_TYPES` continues "wgmma...m64n<N>".
// SS with transposes (16-bit types): %0 a-desc, %1 b-desc, %2 scale-d, then the accumulators.
#define TESSERA_WGMMA_SS_ASM(N, SHAPE_TYPES, TAIL, C, R)                                                       \
  TESSERA_WGMMA_BODY("{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\nwgmma.mma_async.sync.aligned.m64n" #N SHAPE_TYPES \
                     " {" TESSERA_WGMMA_SS_##R "}, %0, %1, p" TAIL ";\n}\n"                                     \
                     : "+l"(a), "+l"(b), "+r"(scale_d), TESSERA_WGMMA_D_##R(C, d))
// RS: %0-%3 the A fragment, %4 b-desc, %5 scale-d, then the accumulators.
#define TESSERA_WGMMA_RS_ASM(N, SHAPE_TYPES, TAIL, C, R)                                                       \
  TESSERA_WGMMA_BODY("{\n.reg .pred p;\nsetp.ne.b32 p, %5, 0;\nwgmma.mma_async.sync.aligned.m64n" #N SHAPE_TYPES \
                     " {" TESSERA_WGMMA_RS_##R "}, {%0, %1, %2, %3}, %4, p" TAIL ";\n}\n"                       \
                     : "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3), "+l"(b), "+r"(scale_d), TESSERA_WGMMA_D_##R(C, d))

#define TESSERA_WGMMA_SS_TRANSPOSED(N, SHAPE_TYPES, C, R)                                               \
  if constexpr (TA == 0 && TB == 0) TESSERA_WGMMA_SS_ASM(N, SHAPE_TYPES, ", 1, 1, 0, 0", C, R);            \
  else if constexpr (TA == 0) TESSERA_WGMMA_SS_ASM(N, SHAPE_TYPES, ", 1, 1, 0, 1", C, R);                  \
  else if constexpr (TB == 0) TESSERA_WGMMA_SS_ASM(N, SHAPE_TYPES, ", 1, 1, 1, 0", C, R);                  \
  else TESSERA_WGMMA_SS_ASM(N, SHAPE_TYPES, ", 1, 1, 1, 1", C, R)

// SS forms: First = false reads the accumulators (constraint C, "+"), First = true only writes
// them (W, "="; called with scale-d 0), so that their earlier values need not be live.
#define TESSERA_WGMMA_FORMS_TRANSPOSABLE(NAME, N, SHAPE_TYPES, C, W, T, R)                                     \
  template <int TA, int TB, bool First = false>                                                                \
  TESSERA_DEVICE static void NAME##_ss(T (&d)[R], std::uint64_t a, std::uint64_t b, std::uint32_t scale_d) {   \
    if constexpr (First) { TESSERA_WGMMA_SS_TRANSPOSED(N, SHAPE_TYPES, W, R); }                                \
    else { TESSERA_WGMMA_SS_TRANSPOSED(N, SHAPE_TYPES, C, R); }                                                \
  }                                                                                                            \
  template <int TB>                                                                                            \
  TESSERA_DEVICE static void NAME##_rs(T (&d)[R], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,        \
                                       std::uint32_t a3, std::uint64_t b, std::uint32_t scale_d) {             \
    if constexpr (TB == 0) TESSERA_WGMMA_RS_ASM(N, SHAPE_TYPES, ", 1, 1, 0", C, R);                             \
    else TESSERA_WGMMA_RS_ASM(N, SHAPE_TYPES, ", 1, 1, 1", C, R);                                              \
  }

#define TESSERA_WGMMA_FORMS(NAME, N, SHAPE_TYPES, C, W, T, R)                                                  \
  template <int, int, bool First = false>                                                                      \
  TESSERA_DEVICE static void NAME##_ss(T (&d)[R], std::uint64_t a, std::uint64_t b, std::uint32_t scale_d) {   \
    if constexpr (First) TESSERA_WGMMA_SS_ASM(N, SHAPE_TYPES, ", 1, 1", W, R);                                 \
    else TESSERA_WGMMA_SS_ASM(N, SHAPE_TYPES, ", 1, 1", C, R);                                                 \
  }                                                                                                            \
  template <int>                                                                                               \
  TESSERA_DEVICE static void NAME##_rs(T (&d)[R], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,        \
                                       std::uint32_t a3, std::uint64_t b, std::uint32_t scale_d) {             \
    TESSERA_WGMMA_RS_ASM(N, SHAPE_TYPES, ", 1, 1", C, R);                                                      \
  }

template <int N>
struct WgmmaN;

#define TESSERA_WGMMA_DEFINE_N(N, RF32, RF16)                                                        \
  template <>                                                                                        \
  struct WgmmaN<N> {                                                                                 \
    TESSERA_WGMMA_FORMS_TRANSPOSABLE(f32_bf16, N, "k16.f32.bf16.bf16", "+f", "=f", float, RF32)             \
    TESSERA_WGMMA_FORMS_TRANSPOSABLE(f32_f16, N, "k16.f32.f16.f16", "+f", "=f", float, RF32)                \
    TESSERA_WGMMA_FORMS_TRANSPOSABLE(f16_f16, N, "k16.f16.f16.f16", "+r", "=r", std::uint32_t, RF16)        \
    TESSERA_WGMMA_FORMS(f32_tf32, N, "k8.f32.tf32.tf32", "+f", "=f", float, RF32)                           \
    TESSERA_WGMMA_FORMS(f32_e4m3_e4m3, N, "k32.f32.e4m3.e4m3", "+f", "=f", float, RF32)                     \
    TESSERA_WGMMA_FORMS(f32_e4m3_e5m2, N, "k32.f32.e4m3.e5m2", "+f", "=f", float, RF32)                     \
    TESSERA_WGMMA_FORMS(f32_e5m2_e4m3, N, "k32.f32.e5m2.e4m3", "+f", "=f", float, RF32)                     \
    TESSERA_WGMMA_FORMS(f32_e5m2_e5m2, N, "k32.f32.e5m2.e5m2", "+f", "=f", float, RF32)                     \
    TESSERA_WGMMA_FORMS(f16_e4m3_e4m3, N, "k32.f16.e4m3.e4m3", "+r", "=r", std::uint32_t, RF16)             \
    TESSERA_WGMMA_FORMS(f16_e4m3_e5m2, N, "k32.f16.e4m3.e5m2", "+r", "=r", std::uint32_t, RF16)             \
    TESSERA_WGMMA_FORMS(f16_e5m2_e4m3, N, "k32.f16.e5m2.e4m3", "+r", "=r", std::uint32_t, RF16)             \
    TESSERA_WGMMA_FORMS(f16_e5m2_e5m2, N, "k32.f16.e5m2.e5m2", "+r", "=r", std::uint32_t, RF16)             \
  };
TESSERA_WGMMA_FOR_EACH_N(TESSERA_WGMMA_DEFINE_N)

#undef TESSERA_WGMMA_DEFINE_N
#undef TESSERA_WGMMA_FORMS
#undef TESSERA_WGMMA_FORMS_TRANSPOSABLE
#undef TESSERA_WGMMA_SS_TRANSPOSED
#undef TESSERA_WGMMA_RS_ASM
#undef TESSERA_WGMMA_SS_ASM

template <class T>
inline constexpr bool is_fp8 = std::is_same_v<T, float8_e4m3_t> || std::is_same_v<T, float8_e5m2_t>;

}  // namespace detail

// m64nNkK for operand types EA, EB and accumulator type Acc (float or half); K follows from the
// types. MA / MB: which extent of A (M or K) and B (N or K) is contiguous in shared memory.
template <int N, class EA, class EB, class Acc, Major MA = Major::K, Major MB = Major::K>
struct Wgmma {
  static constexpr bool sixteen_bit = (std::is_same_v<EA, bfloat16_t> || std::is_same_v<EA, half_t>) && std::is_same_v<EA, EB>;
  static constexpr bool tf32 = std::is_same_v<EA, float> && std::is_same_v<EB, float>;
  static constexpr bool fp8 = detail::is_fp8<EA> && detail::is_fp8<EB>;
  static constexpr bool f32_acc = std::is_same_v<Acc, float>;
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "arch::sm90::Wgmma: N must be 8 to 256 in steps of 8; use such a tile width");
  static_assert(sixteen_bit || tf32 || fp8,
                "arch::sm90::Wgmma: unsupported operand types; use bfloat16_t/half_t pairs, float (tf32) or float8 e4m3/e5m2");
  static_assert(f32_acc || (std::is_same_v<Acc, half_t> && !std::is_same_v<EA, bfloat16_t> && !tf32),
                "arch::sm90::Wgmma: unsupported accumulator; use float (any operands) or half_t (half_t or float8 operands)");
  static_assert(sixteen_bit || (MA == Major::K && MB == Major::K),
                "arch::sm90::Wgmma: tf32 and float8 operands must be K-major in shared memory; transpose them when staging");

  static constexpr int M = 64;
  static constexpr int K = sixteen_bit ? 16 : tf32 ? 8 : 32;
  static constexpr int regs = f32_acc ? N / 2 : N / 4;  // accumulator registers per thread
  using Reg = std::conditional_t<f32_acc, float, std::uint32_t>;
  static constexpr int ta = MA == Major::MN, tb = MB == Major::MN;

  // D = A B (+ D when accumulate): A and B through shared-memory descriptors.
  TESSERA_DEVICE static void ss(Reg (&d)[regs], std::uint64_t a, std::uint64_t b, bool accumulate) {
    ss_form<false>(d, a, b, accumulate ? 1u : 0u);
  }

  // D = A B, the accumulators written only: what d held before is neither read nor kept alive,
  // so a tile's first k-step needs no zeroed accumulators (which cost an instruction per
  // register between two tiles) and the previous tile's values die at their last use.
  TESSERA_DEVICE static void ss_first(Reg (&d)[regs], std::uint64_t a, std::uint64_t b) { ss_form<true>(d, a, b, 0u); }

  // D = A B (+ D): A from the registers of the A fragment (4 per thread: rows as in the
  // accumulator layout, each register two 16-bit values, or four 8-bit ones, along K).
  TESSERA_DEVICE static void rs(Reg (&d)[regs], std::uint32_t const (&a)[4], std::uint64_t b, bool accumulate) {
    static_assert(MA == Major::K, "arch::sm90::Wgmma: an A fragment in registers is K-major; use Major::K for A");
    using I = detail::WgmmaN<N>;
    std::uint32_t const s = accumulate ? 1u : 0u;
    if constexpr (std::is_same_v<EA, bfloat16_t>) I::template f32_bf16_rs<tb>(d, a[0], a[1], a[2], a[3], b, s);
    else if constexpr (sixteen_bit && f32_acc) I::template f32_f16_rs<tb>(d, a[0], a[1], a[2], a[3], b, s);
    else if constexpr (sixteen_bit) I::template f16_f16_rs<tb>(d, a[0], a[1], a[2], a[3], b, s);
    else if constexpr (tf32) I::template f32_tf32_rs<0>(d, a[0], a[1], a[2], a[3], b, s);
    else fp8_form<false>(d, 0, b, s, &a);
  }

 private:
  template <bool First>
  TESSERA_DEVICE static void ss_form(Reg (&d)[regs], std::uint64_t a, std::uint64_t b, std::uint32_t s) {
    using I = detail::WgmmaN<N>;
    if constexpr (std::is_same_v<EA, bfloat16_t>) I::template f32_bf16_ss<ta, tb, First>(d, a, b, s);
    else if constexpr (sixteen_bit && f32_acc) I::template f32_f16_ss<ta, tb, First>(d, a, b, s);
    else if constexpr (sixteen_bit) I::template f16_f16_ss<ta, tb, First>(d, a, b, s);
    else if constexpr (tf32) I::template f32_tf32_ss<0, 0, First>(d, a, b, s);
    else fp8_form<true, First>(d, a, b, s, nullptr);
  }

  template <bool SS, bool First = false>
  TESSERA_DEVICE static void fp8_form(Reg (&d)[regs], std::uint64_t a, std::uint64_t b, std::uint32_t s,
                                      std::uint32_t const (*r)[4]) {
    using I = detail::WgmmaN<N>;
    constexpr bool a4 = std::is_same_v<EA, float8_e4m3_t>, b4 = std::is_same_v<EB, float8_e4m3_t>;
#define TESSERA_WGMMA_FP8(NAME)                                         \
  if constexpr (SS) I::template NAME##_ss<0, 0, First>(d, a, b, s);     \
  else I::template NAME##_rs<0>(d, (*r)[0], (*r)[1], (*r)[2], (*r)[3], b, s)
    if constexpr (f32_acc && a4 && b4) { TESSERA_WGMMA_FP8(f32_e4m3_e4m3); }
    else if constexpr (f32_acc && a4) { TESSERA_WGMMA_FP8(f32_e4m3_e5m2); }
    else if constexpr (f32_acc && b4) { TESSERA_WGMMA_FP8(f32_e5m2_e4m3); }
    else if constexpr (f32_acc) { TESSERA_WGMMA_FP8(f32_e5m2_e5m2); }
    else if constexpr (a4 && b4) { TESSERA_WGMMA_FP8(f16_e4m3_e4m3); }
    else if constexpr (a4) { TESSERA_WGMMA_FP8(f16_e4m3_e5m2); }
    else if constexpr (b4) { TESSERA_WGMMA_FP8(f16_e5m2_e4m3); }
    else { TESSERA_WGMMA_FP8(f16_e5m2_e5m2); }
#undef TESSERA_WGMMA_FP8
  }
};

#undef TESSERA_WGMMA_BODY

}  // namespace tessera::arch::sm90

#pragma GCC diagnostic pop
