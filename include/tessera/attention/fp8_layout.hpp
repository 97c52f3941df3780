// P V with 8-bit operands (attention's fp8 path): how the scores' accumulator becomes wgmma's
// A operand without moving a value between threads, and the order of keys that V^T must follow.
//
// The f32 accumulator of S = Q K^T (tile::WgmmaAccum, m64nN) gives thread (warp w, group g,
// quad lane q) value v = 4 j + 2 h + e at row 16 w + g + 8 h, key 8 j + 2 q + e. wgmma's 8-bit
// A fragment (m64nNk32, register r of a k-step, bytes i = 0..3 low to high) holds row
// 16 w + g + 8 (r % 2), k-slot 16 (r / 2) + 4 q + i: four consecutive slots where the thread has
// keys 2q, 2q + 1, 8 + 2q, 9 + 2q of each 16. So slot 16 c + 4 q + i of the k dimension holds
// key 16 c + 8 (i / 2) + 2 q + i % 2 (key_of_slot): P's registers are the thread's own values
// (p_value), and V^T's k-slots hold the same permutation of V's keys (the kernel writes V^T so,
// attention/sm90/transpose_v.hpp). A sum over keys does not depend on their order.
//
//   for each k-step s, register r, byte i: A byte = fp8(S value p_value(s, r, i))
//   V^T[d][slot] = V[key_of_slot(slot)][d]
#pragma once

#include <cstdint>

#include "tessera/core/config.hpp"

namespace tessera::attention::fp8 {

// The key that k-slot `slot` of P V holds.
TESSERA_HD constexpr int key_of_slot(int slot) {
  int const c = slot / 16, a = slot % 16, q = a / 4, i = a % 4;
  return 16 * c + 8 * (i / 2) + 2 * q + i % 2;
}

// The accumulator value (tile::WgmmaAccum's index v, one m64 half) that byte i of A register r of
// k-step s holds.
TESSERA_HD constexpr int p_value(int s, int r, int i) {
  int const c = 2 * s + r / 2, h = r % 2;
  return 4 * (2 * c + i / 2) + 2 * h + i % 2;
}

// __byte_perm's selection (result byte n = byte sel[n] of x's four then y's four), on the host too.
TESSERA_HD std::uint32_t byte_perm(std::uint32_t x, std::uint32_t y, unsigned sel) {
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA)
  return __byte_perm(x, y, sel);
#else
  std::uint64_t const both = std::uint64_t(y) << 32 | x;
  std::uint32_t out = 0;
  for (int n = 0; n < 4; ++n) out |= std::uint32_t((both >> (8 * ((sel >> (4 * n)) & 7))) & 0xFF) << (8 * n);
  return out;
#endif
}

// V^T's words from V's: w[0..3] hold four columns (bytes) of keys k, k + 1, k + 8, k + 9; out[j]
// holds column j of those keys, in that order (the slots 16 c + 4 q + 0..3, k = 16 c + 2 q).
TESSERA_HD void transpose_keys(std::uint32_t const (&w)[4], std::uint32_t (&out)[4]) {
  std::uint32_t const t0 = byte_perm(w[0], w[1], 0x5140), t1 = byte_perm(w[0], w[1], 0x7362);  // (k, k + 1) byte pairs
  std::uint32_t const t2 = byte_perm(w[2], w[3], 0x5140), t3 = byte_perm(w[2], w[3], 0x7362);  // (k + 8, k + 9)
  out[0] = byte_perm(t0, t2, 0x5410), out[1] = byte_perm(t0, t2, 0x7632);
  out[2] = byte_perm(t1, t3, 0x5410), out[3] = byte_perm(t1, t3, 0x7632);
}

}  // namespace tessera::attention::fp8
