// attention::fp8's P V layout: key_of_slot is a permutation of each 16 keys; the A fragment's
// bytes (p_value) are the accumulator values of the keys their slots hold, at the rows the 8-bit
// A fragment gives them (m64nNk32: register r of a k-step at row g + 8 (r % 2), slots
// 16 (r / 2) + 4 q + i); and the producer's byte transposition (four V words at keys k, k + 1,
// k + 8, k + 9 to four V^T words) puts key key_of_slot(slot) in each slot.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "tessera/attention/fp8_layout.hpp"
#include "tessera/tile/wgmma_accum.hpp"

using namespace tessera;
using namespace tessera::attention;

TEST_CASE("attention fp8 layout: slots, P's bytes and V^T's keys", "[attention]") {
  for (int base = 0; base < 64; base += 16) {  // a permutation of each 16 keys
    std::vector<int> hit(16, 0);
    for (int slot = base; slot < base + 16; ++slot) {
      int const key = fp8::key_of_slot(slot);
      REQUIRE(key >= base);
      REQUIRE(key < base + 16);
      ++hit[std::size_t(key - base)];
    }
    for (int h : hit) CHECK(h == 1);
  }
  using Acc = tile::WgmmaAccum<float, 128, 1>;
  for (int thread = 0; thread < 128; ++thread) {
    int const g = (thread % 32) / 4, q = thread % 4, w = thread / 32;
    for (int s = 0; s < 128 / 32; ++s)
      for (int r = 0; r < 4; ++r)
        for (int i = 0; i < 4; ++i) {
          int const v = fp8::p_value(s, r, i);
          int const row = 16 * w + g + 8 * (r % 2), slot = 32 * s + 16 * (r / 2) + 4 * q + i;
          INFO("thread " << thread << " step " << s << " register " << r << " byte " << i);
          CHECK(Acc::row(thread, v) == row);
          CHECK(Acc::col(thread, v) == fp8::key_of_slot(slot));
        }
  }
  // The producer's byte transposition (fp8::transpose_keys, on the host): word j of the output
  // holds column j of keys k, k + 1, k + 8, k + 9 (k = 16 c + 2 q): slots 16 c + 4 q + 0..3.
  auto const value = [](int key, int col) { return std::uint8_t(key * 16 + col); };  // distinct per (key, col < 16)
  for (int c = 0; c < 2; ++c)
    for (int q = 0; q < 4; ++q) {
      int const k = 16 * c + 2 * q;
      auto const word = [&](int key) {  // V's row key, columns 0..3
        return std::uint32_t(value(key, 0)) | std::uint32_t(value(key, 1)) << 8 | std::uint32_t(value(key, 2)) << 16 |
               std::uint32_t(value(key, 3)) << 24;
      };
      std::uint32_t const w[4] = {word(k), word(k + 1), word(k + 8), word(k + 9)};
      std::uint32_t out[4];
      fp8::transpose_keys(w, out);
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) CHECK(std::uint8_t(out[j] >> (8 * i)) == value(fp8::key_of_slot(16 * c + 4 * q + i), j));
    }
}
