// AMD buffer loads (gfx9: CDNA2 / CDNA3): loads through a buffer resource, whose range check
// returns zero for out-of-range bytes instead of faulting.
//
// A buffer resource (V#) is 128 bits, held in four scalar registers:
//   bits   0-47   the base address;
//   bits  48-61   the stride: 0, a raw buffer whose offsets are bytes (the only kind made here);
//   bits  62-63   swizzle controls: 0;
//   bits  64-95   num_records: for a raw buffer, its size in bytes;
//   bits  96-127  DST_SEL_X..W (0-11), NUM_FORMAT (12-14), DATA_FORMAT (15-18) and controls that
//                 stay 0. DATA_FORMAT must not be 0 (INVALID, under which every load reads zero):
//                 it is 4 (32 bits), which untyped dword loads ignore otherwise.
// A load of one to four dwords at byte offset o is range-checked per dword: each dword whose
// offset lies at or past num_records reads as zero (and never touches memory). Loads of one or two
// bytes are checked as a whole.
//
// make_buffer_resource rounds the size up to whole dwords (the last dword of an extent is read
// whole, and cannot cross a page) and caps it at kBufferMaxBytes, so that kBufferOutOfRange, an
// offset past the end of every resource made here, reads zero: a thread whose load must read
// nothing passes it instead of branching around the load.
//
// buffer_load<T> is the instruction in HIP device code (the LLVM intrinsic
// llvm.amdgcn.raw.buffer.load, which clang 15 offers under its own name only) and a model of it in
// host code, which reads through the base address with the same range check: the tile copies that
// use it are tested on the host with the very code the kernel runs (test_buffer_loads).
#pragma once

#include <cstdint>
#include <cstring>

#include "tessera/core/config.hpp"

namespace tessera::arch::gfx9 {

struct BufferResource {
  std::uint32_t word[4];
};

// 16 bytes, moved as one buffer_load_dwordx4 (and ds_write_b128 / ds_read_b128).
struct alignas(16) Dwords4 {
  std::uint32_t w[4];
};

inline constexpr std::uint32_t kBufferDataFormat32 = 4;
inline constexpr std::uint32_t kBufferConfigWord = kBufferDataFormat32 << 15;  // 0x00020000
inline constexpr std::uint32_t kBufferMaxBytes = 0x80000000u;
inline constexpr std::uint32_t kBufferOutOfRange = kBufferMaxBytes;

// A raw buffer of `bytes` bytes at `address` (rounded up to whole dwords, capped at kBufferMaxBytes).
TESSERA_HD constexpr BufferResource make_buffer_resource(std::uint64_t address, std::uint64_t bytes) {
  std::uint64_t const rounded = (bytes + 3) / 4 * 4;
  std::uint64_t const records = rounded < kBufferMaxBytes ? rounded : kBufferMaxBytes;
  return {{std::uint32_t(address), std::uint32_t(address >> 32) & 0xFFFFu, std::uint32_t(records), kBufferConfigWord}};
}
TESSERA_HD BufferResource make_buffer_resource(void const* base, std::uint64_t bytes) {
  return make_buffer_resource(std::uint64_t(reinterpret_cast<std::uintptr_t>(base)), bytes);
}

// The range check of one piece of a load (a dword, or a whole 1- or 2-byte load) at byte offset
// `offset`: true where it reads memory, false where it reads zero.
TESSERA_HD constexpr bool buffer_in_range(BufferResource const& r, std::uint32_t offset) { return offset < r.word[2]; }

#if defined(__HIP_DEVICE_COMPILE__)
namespace gfx9_detail {
typedef int resource_t __attribute__((ext_vector_type(4)));
typedef int int4_t __attribute__((ext_vector_type(4)));
// raw.buffer.load(resource, voffset, soffset, aux: glc / slc bits, 0 here)
__device__ int4_t raw_buffer_load_v4i32(resource_t, int, int, int) __asm("llvm.amdgcn.raw.buffer.load.v4i32");
__device__ int raw_buffer_load_i32(resource_t, int, int, int) __asm("llvm.amdgcn.raw.buffer.load.i32");
__device__ short raw_buffer_load_i16(resource_t, int, int, int) __asm("llvm.amdgcn.raw.buffer.load.i16");
__device__ char raw_buffer_load_i8(resource_t, int, int, int) __asm("llvm.amdgcn.raw.buffer.load.i8");
}  // namespace gfx9_detail
#endif

// v, which every lane of the wavefront holds alike, in a scalar register (v_readfirstlane_b32; on
// the host, v). A buffer resource must be in scalar registers: where its base depends on a value
// that the compiler computed with vector instructions (a quotient: integer division is done in
// floating point), hipcc 5.2 wraps each load in a waterfall loop over the lanes' resources unless
// the value passes through here first.
TESSERA_HD int wave_uniform(int v) {
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_amdgcn_readfirstlane(v);
#else
  return v;
#endif
}

// T (1, 2 or 4 bytes, or Dwords4) at byte offset `offset` of the buffer, zero where out of range.
// The offset must be a multiple of T's size (at least 4 for Dwords4).
template <class T>
TESSERA_HD T buffer_load(BufferResource const& r, std::uint32_t offset) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 16,
                "arch::gfx9::buffer_load: loads of 1, 2, 4 or 16 bytes; load wider data as Dwords4");
#if defined(__HIP_DEVICE_COMPILE__)
  gfx9_detail::resource_t const res = {int(r.word[0]), int(r.word[1]), int(r.word[2]), int(r.word[3])};
  int const off = int(offset);
  if constexpr (sizeof(T) == 16) return __builtin_bit_cast(T, gfx9_detail::raw_buffer_load_v4i32(res, off, 0, 0));
  else if constexpr (sizeof(T) == 4) return __builtin_bit_cast(T, gfx9_detail::raw_buffer_load_i32(res, off, 0, 0));
  else if constexpr (sizeof(T) == 2) return __builtin_bit_cast(T, gfx9_detail::raw_buffer_load_i16(res, off, 0, 0));
  else return __builtin_bit_cast(T, gfx9_detail::raw_buffer_load_i8(res, off, 0, 0));
#else
  // The model: dword by dword (a whole 1- or 2-byte access), zero where out of range.
  auto const* const base = reinterpret_cast<unsigned char const*>(
      std::uintptr_t((std::uint64_t(r.word[1] & 0xFFFFu) << 32) | r.word[0]));
  unsigned char bytes[sizeof(T)] = {};
  constexpr std::uint32_t piece = sizeof(T) < 4 ? sizeof(T) : 4;
  for (std::uint32_t at = 0; at < sizeof(T); at += piece)
    if (buffer_in_range(r, offset + at)) std::memcpy(bytes + at, base + offset + at, piece);
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
#endif
}

}  // namespace tessera::arch::gfx9
