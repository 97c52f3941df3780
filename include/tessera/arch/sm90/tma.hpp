// TMA (sm_90): the copy engine moves a box of a tensor between global and shared memory, as
// described by a 128-byte tensor map made on the host (arch/sm90/tensor_map.hpp). Loads complete
// their bytes on an mbarrier (arch/sm90/mbarrier.hpp) and may be multicast to several blocks of a
// cluster; stores are tracked per thread in bulk groups. Elements of the box outside the tensor
// are zero-filled on loads and skipped on stores, so tiles at the edges need no predication, with
// one exception: stores write whole 16-byte chunks of the innermost dimension, so where its extent
// is not a multiple of 16 bytes they write past it, up to the next 16 bytes (seen on the H100).
//
//   __global__ void k(__grid_constant__ const TmaDescriptor map) {
//     tma_load_2d(smem_address(tile), &map, col, row, bar);   // coordinates innermost first
//
// The map must be a __grid_constant__ kernel parameter (or in global memory), 64-byte aligned. The
// innermost coordinate of a box times the element size must be a multiple of 16 bytes (a store at
// column 100 of a bf16 matrix stopped the H100 with an illegal instruction; 104 works); tiles of
// a GEMM start at such multiples.
#pragma once

#include <cstdint>

#include "tessera/arch/arch.hpp"

// The fallback bodies (targets without the instructions) leave the operands unused.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tessera::arch::sm90 {

// The driver's CUtensorMap: opaque, 128 bytes, 128-byte aligned as cuda.h declares it (the PTX
// instructions need 64).
struct alignas(128) TmaDescriptor {
  std::uint64_t opaque[16];
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#  define TESSERA_TMA_BODY(...) asm volatile(__VA_ARGS__)
#else
#  define TESSERA_TMA_BODY(...) TESSERA_UNREACHABLE("TMA needs sm_90: build for sm_90a")
#endif

// Fetches the tensor map into the cache ahead of the first copy.
TESSERA_DEVICE inline void tma_prefetch_descriptor(TmaDescriptor const* map) {
  TESSERA_TMA_BODY("prefetch.tensormap [%0];\n" ::"l"(map) : "memory");
}

// Box at (c0, c1) (c0 the innermost coordinate) into shared memory at `dst`, completing its bytes
// on the mbarrier `bar` (shared addresses).
TESSERA_DEVICE inline void tma_load_2d(std::uint32_t dst, TmaDescriptor const* map, int c0, int c1, std::uint32_t bar) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

TESSERA_DEVICE inline void tma_load_3d(std::uint32_t dst, TmaDescriptor const* map, int c0, int c1, int c2, std::uint32_t bar) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}

// A 4-D box: attention's (head dimension, sequence, head, batch) tensors, whose strides place
// BSHD and BHSD alike.
TESSERA_DEVICE inline void tma_load_4d(std::uint32_t dst, TmaDescriptor const* map, int c0, int c1, int c2, int c3, std::uint32_t bar) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}

// The same box into shared memory at `dst` in every block of the cluster whose bit is set in
// `cta_mask`, completing the bytes on each one's barrier at `bar`.
TESSERA_DEVICE inline void tma_load_2d_multicast(std::uint32_t dst, TmaDescriptor const* map, int c0, int c1, std::uint32_t bar,
                                                 std::uint16_t cta_mask) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], "
      "%5;\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(bar), "h"(cta_mask)
      : "memory");
}

TESSERA_DEVICE inline void tma_load_3d_multicast(std::uint32_t dst, TmaDescriptor const* map, int c0, int c1, int c2,
                                                 std::uint32_t bar, std::uint16_t cta_mask) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3, %4}], "
      "[%5], %6;\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(cta_mask)
      : "memory");
}

// Im2col loads (a map from make_tensor_map_im2col): pixels_per_column pixels of channels_per_pixel
// channels each into shared memory at `dst`, the first pixel at tensor coordinates (c, w, h, n)
// (4-D, NHWC; the 3-D form drops h, the 5-D form adds d before n) and each read through the
// filter offset (off_w, off_h) added to its coordinates; the pixels walk the map's bounding box
// W first, then H (D), then N, by its element strides. Out-of-tensor pixels land as zeros.
TESSERA_DEVICE inline void tma_load_im2col_3d(std::uint32_t dst, TmaDescriptor const* map, int c, int w, int n, std::uint32_t bar,
                                              std::uint16_t off_w) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5], {%6};\n" ::"r"(
          dst),
      "l"(map), "r"(c), "r"(w), "r"(n), "r"(bar), "h"(off_w)
      : "memory");
}
TESSERA_DEVICE inline void tma_load_im2col_4d(std::uint32_t dst, TmaDescriptor const* map, int c, int w, int h, int n, std::uint32_t bar,
                                              std::uint16_t off_w, std::uint16_t off_h) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, "
      "%8};\n" ::"r"(dst),
      "l"(map), "r"(c), "r"(w), "r"(h), "r"(n), "r"(bar), "h"(off_w), "h"(off_h)
      : "memory");
}
TESSERA_DEVICE inline void tma_load_im2col_5d(std::uint32_t dst, TmaDescriptor const* map, int c, int w, int h, int d, int n,
                                              std::uint32_t bar, std::uint16_t off_w, std::uint16_t off_h, std::uint16_t off_d) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7], "
      "{%8, %9, %10};\n" ::"r"(dst),
      "l"(map), "r"(c), "r"(w), "r"(h), "r"(d), "r"(n), "r"(bar), "h"(off_w), "h"(off_h), "h"(off_d)
      : "memory");
}

// The same im2col box into shared memory at `dst` in every block of the cluster whose bit is set
// in `cta_mask`, completing the bytes on each one's barrier at `bar`.
TESSERA_DEVICE inline void tma_load_im2col_3d_multicast(std::uint32_t dst, TmaDescriptor const* map, int c, int w, int n,
                                                        std::uint32_t bar, std::uint16_t off_w, std::uint16_t cta_mask) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3, "
      "%4}], [%5], {%6}, %7;\n" ::"r"(dst),
      "l"(map), "r"(c), "r"(w), "r"(n), "r"(bar), "h"(off_w), "h"(cta_mask)
      : "memory");
}
TESSERA_DEVICE inline void tma_load_im2col_4d_multicast(std::uint32_t dst, TmaDescriptor const* map, int c, int w, int h, int n,
                                                        std::uint32_t bar, std::uint16_t off_w, std::uint16_t off_h,
                                                        std::uint16_t cta_mask) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3, "
      "%4, %5}], [%6], {%7, %8}, %9;\n" ::"r"(dst),
      "l"(map), "r"(c), "r"(w), "r"(h), "r"(n), "r"(bar), "h"(off_w), "h"(off_h), "h"(cta_mask)
      : "memory");
}
TESSERA_DEVICE inline void tma_load_im2col_5d_multicast(std::uint32_t dst, TmaDescriptor const* map, int c, int w, int h, int d, int n,
                                                        std::uint32_t bar, std::uint16_t off_w, std::uint16_t off_h, std::uint16_t off_d,
                                                        std::uint16_t cta_mask) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3, "
      "%4, %5, %6}], [%7], {%8, %9, %10}, %11;\n" ::"r"(dst),
      "l"(map), "r"(c), "r"(w), "r"(h), "r"(d), "r"(n), "r"(bar), "h"(off_w), "h"(off_h), "h"(off_d), "h"(cta_mask)
      : "memory");
}

// L2 eviction priorities for a load's lines (PTX createpolicy): kFirst for data read once (a decode
// GEMM's weights), so that it replaces other streamed lines before anything another kernel left
// in L2, dirty lines included; kLast for data read again soon.
enum class L2Eviction : std::uint8_t { kNormal, kFirst, kLast };

// The 64-bit cache policy of `e` for all of a load's lines (an operand of the .L2::cache_hint forms).
TESSERA_DEVICE inline std::uint64_t l2_policy(L2Eviction e) {
  std::uint64_t policy = 0;
  if (e == L2Eviction::kFirst) TESSERA_TMA_BODY("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  else if (e == L2Eviction::kLast) TESSERA_TMA_BODY("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
  else TESSERA_TMA_BODY("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}

// tma_load_3d and tma_load_3d_multicast with a cache policy from l2_policy.
TESSERA_DEVICE inline void tma_load_3d(std::uint32_t dst, TmaDescriptor const* map, int c0, int c1, int c2, std::uint32_t bar,
                                       std::uint64_t policy) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, {%2, %3, %4}], [%5], "
      "%6;\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "l"(policy)
      : "memory");
}

TESSERA_DEVICE inline void tma_load_3d_multicast(std::uint32_t dst, TmaDescriptor const* map, int c0, int c1, int c2,
                                                 std::uint32_t bar, std::uint16_t cta_mask, std::uint64_t policy) {
  TESSERA_TMA_BODY(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [%0], "
      "[%1, {%2, %3, %4}], [%5], %6, %7;\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(cta_mask), "l"(policy)
      : "memory");
}

// Box from shared memory at `src` to (c0, c1); elements outside the tensor are not written.
TESSERA_DEVICE inline void tma_store_2d(TmaDescriptor const* map, int c0, int c1, std::uint32_t src) {
  TESSERA_TMA_BODY("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(map), "r"(c0), "r"(c1),
                   "r"(src)
                   : "memory");
}

TESSERA_DEVICE inline void tma_store_3d(TmaDescriptor const* map, int c0, int c1, int c2, std::uint32_t src) {
  TESSERA_TMA_BODY("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n" ::"l"(map), "r"(c0),
                   "r"(c1), "r"(c2), "r"(src)
                   : "memory");
}

TESSERA_DEVICE inline void tma_store_4d(TmaDescriptor const* map, int c0, int c1, int c2, int c3, std::uint32_t src) {
  TESSERA_TMA_BODY("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];\n" ::"l"(map), "r"(c0),
                   "r"(c1), "r"(c2), "r"(c3), "r"(src)
                   : "memory");
}

// Closes this thread's group of TMA stores.
TESSERA_DEVICE inline void tma_store_commit() { TESSERA_TMA_BODY("cp.async.bulk.commit_group;\n" ::: "memory"); }

// Waits until at most `Pending` of this thread's store groups still read their shared memory.
template <int Pending>
TESSERA_DEVICE inline void tma_store_wait_read() {
  TESSERA_TMA_BODY("cp.async.bulk.wait_group.read %0;\n" ::"n"(Pending) : "memory");
}

// Waits until at most `Pending` of this thread's store groups are still writing global memory.
template <int Pending>
TESSERA_DEVICE inline void tma_store_wait() {
  TESSERA_TMA_BODY("cp.async.bulk.wait_group %0;\n" ::"n"(Pending) : "memory");
}

#undef TESSERA_TMA_BODY

}  // namespace tessera::arch::sm90

#pragma GCC diagnostic pop
