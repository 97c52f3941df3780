// The gfx9 mainloop's k-tile copies (pipeline::LdsTileCopy) run on the host: load() through the host
// model of buffer loads (arch/gfx9/buffer.hpp), then store() into a poisoned LDS array, with the
// code the kernel runs. Over every k-tile of operands whose M/N and K are not multiples of the tile,
// with K slices ending inside the operand:
//   - every element of the tile inside the operand and before k_end arrives, in the layout's place;
//   - every element at k >= k_end is zero (past a K slice it would be summed twice);
//   - elements at mn >= mn_end are written (zero or operand data: they feed outputs never stored);
//   - nothing is read past the operand: the words after it hold a sentinel that never appears in
//     the tile where operand data must be.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "tessera/pipeline/lds_double_buffer.hpp"

using namespace tessera;

namespace {

template <class E, int MN, int BK, int Threads, bool KMajor, bool Aligned>
void check_copies(int mn_size, int k_size, std::int64_t ld, int k_slice) {
  using Copy = pipeline::LdsTileCopy<E, MN, BK, Threads, KMajor, Aligned>;
  std::int64_t const extent = Copy::extent(mn_size, k_size, ld);
  constexpr E sentinel = E(0x7E), poison = E(0xA5);
  // The operand, then guard elements holding the sentinel; 16-byte aligned storage.
  std::int64_t const count = extent + 64;
  std::vector<pipeline::Vec16> storage(std::size_t((count * sizeof(E) + 15) / 16));
  E* const src = reinterpret_cast<E*>(storage.data());
  std::mt19937 rng(std::uint32_t(mn_size * 7919 + k_size * 31 + int(ld)));
  for (std::int64_t i = 0; i < count; ++i) {
    E v = E(1 + rng() % 100);  // never zero, never the sentinel or the poison
    src[i] = i < extent ? v : sentinel;
  }
  auto at = [&](int mn, int k) { return src[KMajor ? mn * ld + k : k * ld + mn]; };

  for (int k_begin = 0; k_begin < k_size; k_begin += k_slice) {
    int const k_end = std::min(k_size, k_begin + k_slice);
    for (int mn0 = 0; mn0 < mn_size; mn0 += MN)
      for (int k0 = k_begin; k0 < k_end; k0 += BK) {
        std::vector<E> lds(MN * BK, poison);
        for (int tid = 0; tid < Threads; ++tid) {
          Copy copy;
          copy.load(src, ld, extent, mn0, k0, mn_size, k_end, tid);
          copy.store(lds.data(), tid);
        }
        for (int mn = 0; mn < MN; ++mn)
          for (int k = 0; k < BK; ++k) {
            E const got = lds[std::size_t(Copy::Tile::layout()(mn, k))];
            INFO("operand " << mn_size << " x " << k_size << ", ld " << ld << ", K slice ends at " << k_end << ", tile at ("
                            << mn0 << ", " << k0 << "), element (" << mn << ", " << k << ")");
            REQUIRE(got != poison);
            if (k0 + k >= k_end) REQUIRE(got == E(0));
            else if (mn0 + mn < mn_size) REQUIRE(got == at(mn0 + mn, k0 + k));
          }
      }
  }
}

template <class E, int MN, int BK, int Threads, bool KMajor>
void check_both_paths(int mn_size, int k_size, int pad, int k_slice) {
  constexpr int CH = 16 / int(sizeof(E));
  std::int64_t const contiguous = KMajor ? k_size : mn_size;
  // Whole vectors: ld a multiple of 16 bytes; element by element: any ld.
  check_copies<E, MN, BK, Threads, KMajor, true>(mn_size, k_size, (contiguous + pad + CH - 1) / CH * CH, k_slice);
  check_copies<E, MN, BK, Threads, KMajor, false>(mn_size, k_size, contiguous + pad, k_slice);
}

}  // namespace

TEST_CASE("gfx9 k-tile copies through buffer loads: K-major sources", "[pipeline][gfx9][buffer]") {
  check_both_paths<std::uint16_t, 128, 32, 256, true>(128, 64, 0, 64);   // whole tiles
  check_both_paths<std::uint16_t, 128, 32, 256, true>(131, 77, 0, 77);   // M and K residues (K = 77: a vector across it)
  check_both_paths<std::uint16_t, 128, 32, 256, true>(7, 101, 3, 64);    // K slices of 64, ending inside rows
  check_both_paths<std::uint16_t, 64, 64, 256, true>(1, 1, 0, 1);        // one element
  check_both_paths<std::uint8_t, 128, 64, 256, true>(129, 131, 5, 128);  // int8 / fp8
  check_both_paths<std::uint32_t, 128, 16, 256, true>(130, 37, 1, 32);   // f32
}

TEST_CASE("gfx9 k-tile copies through buffer loads: MN-major sources", "[pipeline][gfx9][buffer]") {
  check_both_paths<std::uint16_t, 128, 32, 256, false>(128, 64, 0, 64);
  check_both_paths<std::uint16_t, 128, 32, 256, false>(131, 77, 0, 77);  // an MN vector across M's end
  check_both_paths<std::uint16_t, 128, 32, 256, false>(7, 101, 3, 64);
  check_both_paths<std::uint16_t, 64, 64, 256, false>(1, 1, 0, 1);
  check_both_paths<std::uint8_t, 128, 64, 256, false>(129, 131, 5, 128);
  check_both_paths<std::uint32_t, 128, 16, 256, false>(130, 37, 1, 32);
}
