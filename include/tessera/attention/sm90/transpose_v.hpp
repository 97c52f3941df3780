// fp8 attention's V^T (attention/fp8_layout.hpp): wgmma reads 8-bit operands K-major only, and P V's
// K is the keys, which V stores N-major (each key's head dimension contiguous). The producer
// warpgroup's 128 threads transpose each ring stage as it lands: V as loaded (raw: 128-column
// spans of BKV keys, 128-byte swizzle) to V^T (Dv rows of 128 k-slots, 128-byte swizzle), k-slot
// 16 c + 4 q + i holding key 16 c + 8 (i / 2) + 2 q + i % 2 (fp8::key_of_slot), so that P's A
// fragment is the scores' own registers.
//
// A thread's unit: one 4-byte word of V's columns (d0 .. d0 + 3) at keys k, k + 1, k + 8, k + 9
// (k = 16 c + 2 q) -- four words read, their bytes transposed (six byte permutes), four words of
// V^T written (rows d0 .. d0 + 3, slots 16 c + 4 q .. + 3). Lanes take (column word, q, a bit of
// the column chunk) and XOR the key chunk with their column word's bits, so that every read and
// every write of a warp touches 32 distinct banks of the swizzled tiles.
//
//   TransposeV<Cfg>::run(s, pos, thread);   // all 128 producer threads, positions in order
// tessera-header: cuda-only
#pragma once

#include <cstdint>

#include "tessera/arch/sm90/wgmma.hpp"  // fence_proxy_async_shared
#include "tessera/attention/fp8_layout.hpp"
#include "tessera/attention/sm90/storage.hpp"
#include "tessera/pipeline/warp_specialized.hpp"

namespace tessera::attention::sm90 {

template <class Cfg>
struct TransposeV {
  using S = Storage<Cfg>;
  static constexpr int Dv = Cfg::Dvp, BKV = Cfg::BKV, Stages = Cfg::stages;

  // Ring position pos: waits for its raw V and for its V^T stage to be free, writes V^T, then
  // (one thread) announces V^T and frees the raw stage.
  TESSERA_DEVICE static void run(S& s, int pos, int thread) {
    typename S::Pipe const raw(s.raw_barriers), vt(s.v_barriers);
    raw.consumer_wait(pos);
    vt.producer_wait(pos);
    int const stage = pos % Stages, lane = thread % 32, warp = thread / 32;
    int const dw = lane % 4, q = (lane / 4) % 4, b = lane / 16;
    auto const* const from = reinterpret_cast<std::uint8_t const*>(&s.v.raw[stage][0][0]);
    auto* const to = reinterpret_cast<std::uint8_t*>(&s.v.vt[stage][0][0]);
    TESSERA_UNROLL
    for (int pair = warp; pair < Dv / 32; pair += 4) {  // pairs of 16-byte column chunks
      int const d0 = 16 * (2 * pair + b) + 4 * dw, span = d0 / 128, col = d0 % 128;
      TESSERA_UNROLL
      for (int cl = 0; cl < BKV / 16; ++cl) {
        int const c = cl ^ ((dw / 2) | (b << 1)), k = 16 * c + 2 * q;
        auto const word = [&](int key) {
          return *reinterpret_cast<std::uint32_t const*>(from + span * S::RawBlock::size + int(S::RawBlock::layout()(key, col)));
        };
        std::uint32_t const w[4] = {word(k), word(k + 1), word(k + 8), word(k + 9)};
        std::uint32_t out[4];  // column d0 + j: keys k, k + 1, k + 8, k + 9
        fp8::transpose_keys(w, out);
        int const slot = 16 * c + 4 * q, block = slot / 128;
        TESSERA_UNROLL
        for (int j = 0; j < 4; ++j)
          *reinterpret_cast<std::uint32_t*>(to + block * S::VtBlock::size + int(S::VtBlock::layout()(d0 + j, slot % 128))) = out[j];
      }
    }
    arch::sm90::fence_proxy_async_shared();
    pipeline::producer_barrier();
    if (thread == 0) {
      vt.producer_commit(pos);
      raw.consumer_release(pos);
    }
  }
};

}  // namespace tessera::attention::sm90
