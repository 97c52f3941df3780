// Host side of TMA: encodes the tensor map (arch/sm90/tma.hpp) of a tiled box over a strided
// array through the driver's cuTensorMapEncodeTiled, looked up at run time through the runtime
// (cudaGetDriverEntryPointByVersion), so that nothing links against libcuda. The arguments are
// checked first, with a message that names the fix; nothing is encoded when they are wrong.
//
//   TmaDescriptor map;
//   Status s = make_tensor_map_2d(map, a, /*inner=*/k, /*outer=*/m, /*ld=*/lda,
//                                 /*box_inner=*/64, /*box_outer=*/128, TmaSwizzle::k128B);
//
// Swizzled boxes land in shared memory as tile::SwizzledTile lays out rows of the swizzle span
// (the box's inner extent must be that span: 32, 64 or 128 bytes).
// tessera-header: cuda-only
#pragma once

#include <cuda.h>  // the CUtensorMap types and enums only: no driver call is linked
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/arch/sm90/tma.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/core/status.hpp"

namespace tessera::arch::sm90 {

static_assert(sizeof(CUtensorMap) == sizeof(TmaDescriptor) && alignof(CUtensorMap) <= alignof(TmaDescriptor),
              "arch::sm90::TmaDescriptor: no longer the size of the driver's CUtensorMap; update it");

enum class TmaSwizzle : std::uint8_t { kNone, k32B, k64B, k128B };

inline constexpr int tma_swizzle_bytes(TmaSwizzle s) {
  return s == TmaSwizzle::k128B ? 128 : s == TmaSwizzle::k64B ? 64 : s == TmaSwizzle::k32B ? 32 : 0;
}

// The tensor map element type of T (8-bit floats move as bytes).
template <class T>
constexpr CUtensorMapDataType tma_data_type() {
  if constexpr (std::is_same_v<T, bfloat16_t>) return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  else if constexpr (std::is_same_v<T, half_t>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else if constexpr (std::is_same_v<T, float>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  else if constexpr (std::is_same_v<T, std::int32_t>) return CU_TENSOR_MAP_DATA_TYPE_INT32;
  else {
    static_assert(sizeof(T) == 1, "arch::sm90::tma_data_type: unsupported element type; use bfloat16_t, half_t, float, int32 or a 1-byte type");
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
}

namespace detail {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, cuuint64_t const*, cuuint64_t const*,
                                 cuuint32_t const*, cuuint32_t const*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The driver function `name` (ABI of CUDA 12.0) as Fn, or null without a driver.
template <class Fn>
Fn driver_entry(char const* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found) != cudaSuccess || found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();  // leave no sticky error behind
    return nullptr;
  }
  return reinterpret_cast<Fn>(p);
}

inline EncodeTiled encode_tiled() {
  static EncodeTiled const fn = driver_entry<EncodeTiled>("cuTensorMapEncodeTiled");
  return fn;
}

inline CUtensorMapSwizzle cu_swizzle(TmaSwizzle swizzle) {
  return swizzle == TmaSwizzle::k128B  ? CU_TENSOR_MAP_SWIZZLE_128B
         : swizzle == TmaSwizzle::k64B ? CU_TENSOR_MAP_SWIZZLE_64B
         : swizzle == TmaSwizzle::k32B ? CU_TENSOR_MAP_SWIZZLE_32B
                                       : CU_TENSOR_MAP_SWIZZLE_NONE;
}

using EncodeIm2col = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, cuuint64_t const*, cuuint64_t const*,
                                  int const*, int const*, cuuint32_t, cuuint32_t, cuuint32_t const*, CUtensorMapInterleave,
                                  CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

inline EncodeIm2col encode_im2col() {
  static EncodeIm2col const fn = driver_entry<EncodeIm2col>("cuTensorMapEncodeIm2col");
  return fn;
}

}  // namespace detail

// An im2col map of a rank-`rank` activation tensor (3: NWC, 4: NHWC, 5: NDHWC; dims and strides
// as for make_tensor_map, dims[0] the channels). A load (tma_load_im2col_*) walks the pixels of the
// bounding box whose corners, for each spatial dimension i (0: W, 1: H, 2: D), are lower[i] and
// dims[i + 1] - 1 + upper[i] relative to the coordinates it is given, element_strides[i + 1]
// apart (a convolution's stride); a box is pixels_per_column pixels of channels_per_pixel channels.
// For a convolution: lower = -pad_before, upper = pad_after - dilation (filter - 1). The corners'
// range is what the hardware encodes: 2^15 for NWC, 2^7 for NHWC, 2^4 for NDHWC either way.
inline Status make_tensor_map_im2col(TmaDescriptor& out, CUtensorMapDataType type, int element_bytes, void const* base, int rank,
                                     std::uint64_t const* dims, std::uint64_t const* strides, int const* lower, int const* upper,
                                     std::uint32_t channels_per_pixel, std::uint32_t pixels_per_column, std::uint32_t const* element_strides,
                                     TmaSwizzle swizzle) {
  auto const fail = [](std::string m) { return Status::invalid_argument("im2col tensor map: " + std::move(m)); };
  auto const s = [](std::int64_t v) { return std::to_string(v); };
  if (base == nullptr) return fail("the base pointer is null; pass the tensor's device address");
  if (rank < 3 || rank > 5) return fail("rank " + s(rank) + " is unsupported; use 3 (NWC), 4 (NHWC) or 5 (NDHWC)");
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    return Status::misaligned("im2col tensor map: the base address is not 16-byte aligned; allocate or offset the tensor to 16 bytes");
  int const reach = rank == 3 ? 1 << 15 : rank == 4 ? 1 << 7 : 1 << 4;
  for (int i = 0; i < rank - 2; ++i)
    if (lower[i] < -reach || lower[i] >= reach || upper[i] < -reach || upper[i] >= reach)
      return Status::not_supported("im2col tensor map: a bounding-box corner (" + s(lower[i]) + ", " + s(upper[i]) +
                                   ") is outside TMA's range [" + s(-reach) + ", " + s(reach - 1) + "] for rank " + s(rank) +
                                   "; use less padding or a smaller dilated filter (or the sm80 gather path)");
  for (int i = 0; i < rank; ++i) {
    if (dims[i] < 1 || dims[i] > (std::uint64_t(1) << 32)) return fail("dimension " + s(i) + " has " + s(std::int64_t(dims[i])) + " elements");
    if (element_strides[i] < 1 || element_strides[i] > 8)
      return fail("the element stride of dimension " + s(i) + " is " + s(element_strides[i]) + "; TMA takes 1 to 8 (a convolution stride)");
    if (i >= 1 && (strides[i - 1] % 16 != 0 || strides[i - 1] >= (std::uint64_t(1) << 40)))
      return Status::misaligned("im2col tensor map: the stride of dimension " + s(i) + " is " + s(std::int64_t(strides[i - 1])) +
                                " bytes; it must be a multiple of 16 below 2^40 (pad the channels to 16 bytes)");
  }
  std::uint64_t const inner_bytes = std::uint64_t(channels_per_pixel) * std::uint64_t(element_bytes);
  if (channels_per_pixel < 1 || channels_per_pixel > 256 || inner_bytes % 16 != 0)
    return fail("channels_per_pixel = " + s(channels_per_pixel) + " must be 1 to 256 channels of a whole number of 16 bytes");
  if (pixels_per_column < 1 || pixels_per_column > 1024) return fail("pixels_per_column = " + s(pixels_per_column) + " must be 1 to 1024");
  if (swizzle != TmaSwizzle::kNone && inner_bytes > std::uint64_t(tma_swizzle_bytes(swizzle)))
    return fail("a pixel's channels (" + s(std::int64_t(inner_bytes)) + " bytes) are wider than the swizzle span; load at most the span");
  auto const encode = detail::encode_im2col();
  if (encode == nullptr)
    return Status::not_supported("im2col tensor map: the CUDA driver's cuTensorMapEncodeIm2col is unavailable (no driver, or one "
                                 "older than CUDA 12); run on a machine with an sm_90 GPU and its driver");
  cuuint64_t d[5] = {}, st[5] = {};
  cuuint32_t e[5] = {};
  for (int i = 0; i < rank; ++i) {
    d[i] = dims[i];
    e[i] = element_strides[i];
    if (i >= 1) st[i - 1] = strides[i - 1];
  }
  CUtensorMapSwizzle const sw = detail::cu_swizzle(swizzle);
  CUresult const r = encode(reinterpret_cast<CUtensorMap*>(&out), type, cuuint32_t(rank), const_cast<void*>(base), d, st, lower, upper,
                            channels_per_pixel, pixels_per_column, e, CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return Status::device_error("im2col tensor map: cuTensorMapEncodeIm2col failed with CUresult " + s(int(r)));
  return Status::success();
}

// A tiled map of a rank-`rank` array (1 to 5): dims[i] elements along dimension i (0 innermost,
// contiguous), strides[i - 1] bytes between consecutive elements of dimension i >= 1, boxes of
// box[i] elements. Out-of-bounds elements of a box are zero on loads and dropped on stores.
inline Status make_tensor_map(TmaDescriptor& out, CUtensorMapDataType type, int element_bytes, void const* base, int rank,
                              std::uint64_t const* dims, std::uint64_t const* strides, std::uint32_t const* box,
                              TmaSwizzle swizzle) {
  auto const fail = [](std::string m) { return Status::invalid_argument("tensor map: " + std::move(m)); };
  if (base == nullptr) return fail("the base pointer is null; pass the tensor's device address");
  if (rank < 1 || rank > 5) return fail("rank " + std::to_string(rank) + " is unsupported; use 1 to 5 dimensions");
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    return Status::misaligned("tensor map: the base address is not 16-byte aligned; allocate or offset the tensor to 16 bytes");
  for (int i = 0; i < rank; ++i) {
    if (dims[i] < 1 || dims[i] > (std::uint64_t(1) << 32))
      return fail("dimension " + std::to_string(i) + " has " + std::to_string(dims[i]) + " elements; use 1 to 2^32");
    if (box[i] < 1 || box[i] > 256)
      return fail("the box has " + std::to_string(box[i]) + " elements along dimension " + std::to_string(i) + "; use 1 to 256");
    if (i >= 1 && (strides[i - 1] % 16 != 0 || strides[i - 1] >= (std::uint64_t(1) << 40)))
      return Status::misaligned("tensor map: the stride of dimension " + std::to_string(i) + " is " + std::to_string(strides[i - 1]) +
                                " bytes; it must be a multiple of 16 below 2^40 (pad the leading dimension to 16 bytes)");
  }
  std::uint64_t const inner_bytes = std::uint64_t(box[0]) * std::uint64_t(element_bytes);
  if (inner_bytes % 16 != 0)
    return fail("the box's inner extent is " + std::to_string(inner_bytes) + " bytes; use a multiple of 16 bytes");
  if (swizzle != TmaSwizzle::kNone && inner_bytes > std::uint64_t(tma_swizzle_bytes(swizzle)))
    return fail("the box's inner extent (" + std::to_string(inner_bytes) + " bytes) is wider than the " +
                std::to_string(tma_swizzle_bytes(swizzle)) + "-byte swizzle span; use a box of at most the span");
  auto const encode = detail::encode_tiled();
  if (encode == nullptr)
    return Status::not_supported("tensor map: the CUDA driver's cuTensorMapEncodeTiled is unavailable (no driver, or one older "
                                 "than CUDA 12); run on a machine with an sm_90 GPU and its driver");
  cuuint64_t d[5] = {}, s[5] = {};
  cuuint32_t b[5] = {}, e[5] = {};
  for (int i = 0; i < rank; ++i) {
    d[i] = dims[i];
    b[i] = box[i];
    e[i] = 1;
    if (i >= 1) s[i - 1] = strides[i - 1];
  }
  CUtensorMapSwizzle const sw = detail::cu_swizzle(swizzle);
  CUresult const r = encode(reinterpret_cast<CUtensorMap*>(&out), type, cuuint32_t(rank), const_cast<void*>(base), d, s, b, e,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Status::device_error("tensor map: cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(r)));
  return Status::success();
}

// A row-major 2-D array: `outer` rows of `inner` contiguous elements, `ld` elements apart; boxes
// of box_outer rows by box_inner elements.
template <class T>
Status make_tensor_map_2d(TmaDescriptor& out, T const* base, std::uint64_t inner, std::uint64_t outer, std::uint64_t ld,
                          std::uint32_t box_inner, std::uint32_t box_outer, TmaSwizzle swizzle) {
  std::uint64_t const dims[2] = {inner, outer}, strides[1] = {ld * sizeof(T)};
  std::uint32_t const box[2] = {box_inner, box_outer};
  return make_tensor_map(out, tma_data_type<T>(), int(sizeof(T)), base, 2, dims, strides, box, swizzle);
}

// The same with a third, batch dimension `batch` arrays `batch_stride` elements apart.
template <class T>
Status make_tensor_map_3d(TmaDescriptor& out, T const* base, std::uint64_t inner, std::uint64_t outer, std::uint64_t ld,
                          std::uint64_t batch, std::uint64_t batch_stride, std::uint32_t box_inner, std::uint32_t box_outer,
                          TmaSwizzle swizzle) {
  std::uint64_t const dims[3] = {inner, outer, batch}, strides[2] = {ld * sizeof(T), batch_stride * sizeof(T)};
  std::uint32_t const box[3] = {box_inner, box_outer, 1};
  return make_tensor_map(out, tma_data_type<T>(), int(sizeof(T)), base, 3, dims, strides, box, swizzle);
}

// A 4-D array of `extent[i]` elements along dimension i (0 innermost, contiguous), `stride[i - 1]`
// elements between consecutive indices of dimension i >= 1 (in any order: attention's BSHD
// tensors step heads by less than positions); boxes of box[i] elements.
template <class T>
Status make_tensor_map_4d(TmaDescriptor& out, T const* base, std::uint64_t const (&extent)[4], std::uint64_t const (&stride)[3],
                          std::uint32_t const (&box)[4], TmaSwizzle swizzle) {
  std::uint64_t const bytes[3] = {stride[0] * sizeof(T), stride[1] * sizeof(T), stride[2] * sizeof(T)};
  return make_tensor_map(out, tma_data_type<T>(), int(sizeof(T)), base, 4, extent, bytes, box, swizzle);
}

}  // namespace tessera::arch::sm90
