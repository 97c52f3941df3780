// The shared-memory matrix descriptor of sm_90a wgmma.mma_async: a 64-bit value that tells the
// tensor cores where an operand tile starts and how its 8 x 16-byte core matrices are laid out.
//
//   bits  0-13  start address >> 4        (shared-window byte address, 16-byte units)
//   bits 16-29  leading byte offset >> 4  (LBO)
//   bits 32-45  stride byte offset >> 4   (SBO)
//   bits 49-51  base offset               (the swizzle phase when the start is not pattern-aligned)
//   bits 62-63  swizzle: 0 none (interleaved), 1 128-byte, 2 64-byte, 3 32-byte
//
// For a K-major operand with a 32/64/128-byte swizzle, each row of the tile is one swizzle span
// (32/64/128 bytes of K), 8 consecutive rows form a core-matrix group and SBO is the distance
// between groups (8 x the row bytes when rows are packed); LBO is unused and conventionally 1.
// Without swizzle, core matrices are 8 rows x 16 bytes, SBO steps between 8-row groups and LBO
// between the two 16-byte halves of a k16 step. Moving along K inside a swizzle span adds the
// unswizzled byte offset to the start address: the hardware applies the swizzle to the address
// bits, so the tile's base must be aligned to the pattern (1024 bytes for 128-byte) or the phase
// given in the base offset.
#pragma once

#include <cstdint>

#include "tessera/core/config.hpp"

namespace tessera::arch::sm90 {

enum class WgmmaSwizzle : std::uint8_t { kNone = 0, k128B = 1, k64B = 2, k32B = 3 };

// Bytes in one swizzle span (the K extent of a K-major row), 16 for none.
TESSERA_HD constexpr int swizzle_bytes(WgmmaSwizzle s) {
  return s == WgmmaSwizzle::k128B ? 128 : s == WgmmaSwizzle::k64B ? 64 : s == WgmmaSwizzle::k32B ? 32 : 16;
}

struct WgmmaDescriptor {
  std::uint64_t bits = 0;

  // Byte quantities; each must be a multiple of 16 and below 2^18 (checked by the caller's
  // static_asserts where they are constants; masked here).
  TESSERA_HD static constexpr WgmmaDescriptor make(std::uint32_t smem_address, std::uint32_t lbo_bytes,
                                                   std::uint32_t sbo_bytes, WgmmaSwizzle swizzle,
                                                   std::uint32_t base_offset = 0) {
    std::uint64_t const m14 = 0x3FFF;
    return WgmmaDescriptor{((std::uint64_t(smem_address) >> 4) & m14) | (((std::uint64_t(lbo_bytes) >> 4) & m14) << 16) |
                           (((std::uint64_t(sbo_bytes) >> 4) & m14) << 32) | ((std::uint64_t(base_offset) & 0x7) << 49) |
                           (std::uint64_t(swizzle) << 62)};
  }

  TESSERA_HD constexpr std::uint32_t start_address() const { return std::uint32_t(bits & 0x3FFF) << 4; }
  TESSERA_HD constexpr std::uint32_t lbo_bytes() const { return std::uint32_t((bits >> 16) & 0x3FFF) << 4; }
  TESSERA_HD constexpr std::uint32_t sbo_bytes() const { return std::uint32_t((bits >> 32) & 0x3FFF) << 4; }
  TESSERA_HD constexpr std::uint32_t base_offset() const { return std::uint32_t((bits >> 49) & 0x7); }
  TESSERA_HD constexpr WgmmaSwizzle swizzle() const { return WgmmaSwizzle(bits >> 62); }

  // The same layout `bytes` further on (a k-step inside a swizzle span, or a stage): the start
  // address field grows by bytes / 16. The caller keeps the address inside the 18-bit window.
  TESSERA_HD constexpr WgmmaDescriptor advanced(std::uint32_t bytes) const {
    return WgmmaDescriptor{bits + (std::uint64_t(bytes) >> 4)};
  }
};

}  // namespace tessera::arch::sm90
