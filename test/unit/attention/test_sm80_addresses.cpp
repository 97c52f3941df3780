// The sm80 attention kernel's shared-memory addresses, on the host: each lane's ldmatrix address
// (attention/sm80/warp_gemms.hpp: its first address XOR and plus constants per k-step, key block
// and stage) is that of the row and 16-byte chunk the lane must supply -- row lane % 8 of 8 x 8
// matrix lane / 8, the matrices in the order of the m16n8k16 A and B fragment registers -- in
// attention/sm80/storage.hpp's swizzled blocks; and the loader's regular copies (a base plus
// constants) land each chunk of a tile exactly once, at its swizzled place.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "tessera/attention/config.hpp"
#include "tessera/attention/sm80/loader.hpp"
#include "tessera/attention/sm80/storage.hpp"
#include "tessera/attention/sm80/warp_gemms.hpp"

using namespace tessera;
using namespace tessera::attention;

namespace {

template <int D, int Dv, int W, int BKV, int S = 2>
using Cfg80 = Config<arch::Sm80, bfloat16_t, HeadDim<D, Dv>, BlockTile<16 * W, BKV>, Warps<W>, Stages<S>>;

template <class F>
void for_configs(F&& f) {
  f(Cfg80<128, 128, 4, 64>{});
  f(Cfg80<64, 64, 8, 128, 3>{});
  f(Cfg80<96, 96, 4, 64>{});
  f(Cfg80<192, 128, 4, 64>{});
  f(Cfg80<256, 256, 4, 32>{});
  f(Cfg80<8, 8, 1, 16>{});
  f(Cfg80<72, 40, 2, 48, 4>{});
  f(Cfg80<136, 24, 8, 16>{});
}

template <class Cfg, int Rows, int Chunks, int Stored>
void check_copies() {
  using L = sm80::Loader<Cfg>;
  using S = sm80::Storage<Cfg>;
  INFO("rows " << Rows << " chunks " << Chunks << " stored " << Stored);
  if constexpr (L::template regular<Chunks, Stored>) {
    constexpr int wide = L::template wide_chunks<Chunks>, step = Cfg::threads / wide;
    std::vector<int> hits(std::size_t(Rows * wide), 0);
    for (int tid = 0; tid < Cfg::threads; ++tid) {
      int const r0 = tid / wide, c = 8 * (tid % wide);
      if (step > Rows && r0 >= Rows) continue;
      std::uint32_t const first = S::template offset<Rows>(r0, c);
      for (int it = 0; it < (Rows + step - 1) / step; ++it) {
        REQUIRE(L::slot(first, it, step) == S::template offset<Rows>(r0 + it * step, c));
        ++hits[std::size_t((r0 + it * step) * wide + c / 8)];
      }
    }
    for (int h : hits) REQUIRE(h == 1);
  }
}

}  // namespace

TEST_CASE("attention sm80: ldmatrix addresses are the fragments' rows and chunks", "[attention][sm80]") {
  for_configs([](auto cfg) {
    using Cfg = decltype(cfg);
    using G = sm80::WarpGemms<Cfg>;
    using S = sm80::Storage<Cfg>;
    INFO("D " << Cfg::D << " Dv " << Cfg::Dv << " warps " << Cfg::warps << " BKV " << Cfg::BKV);
    for (int lane = 0; lane < 32; ++lane) {
      int const m = lane / 8, r = lane % 8;  // the lane supplies row r of matrix m
      for (int w = 0; w < Cfg::warps; ++w)
        for (int ks = 0; ks < G::qk_steps; ++ks)  // A: rows 0-7 / 8-15 (m % 2) at k 0-7 / 8-15 (m / 2)
          REQUIRE(G::q_at(G::q_first(w, lane), ks) == S::template offset<Cfg::BQ>(16 * w + r + 8 * (m % 2), 16 * ks + 8 * (m / 2)));
      for (int stage = 0; stage < Cfg::stages; ++stage) {
        for (int ks = 0; ks < G::qk_steps; ++ks)
          for (int j = 0; j < Cfg::BKV / 16; ++j)  // B of atoms 2j, 2j + 1: keys 0-7 / 8-15 (m / 2) at k 0-7 / 8-15 (m % 2)
            REQUIRE(G::k_at(G::k_first(lane), stage, ks, j) ==
                    stage * S::k_stage_bytes + S::template offset<Cfg::BKV>(16 * j + r + 8 * (m / 2), 16 * ks + 8 * (m % 2)));
        for (int ks = 0; ks < Cfg::BKV / 16; ++ks)
          for (int j = 0; j < (Cfg::Dv + 15) / 16; ++j) {  // V^T: keys 0-7 / 8-15 (m % 2) of columns 0-7 / 8-15 (m / 2)
            if (16 * j + 8 * (m / 2) >= Cfg::Dv) continue;  // x2 for a last single atom: lanes 0-15
            REQUIRE(G::v_at(G::v_first(lane), stage, ks, j) ==
                    stage * S::v_stage_bytes + S::template offset<Cfg::BKV>(16 * ks + r + 8 * (m % 2), 16 * j + 8 * (m / 2)));
          }
      }
    }
  });
}

TEST_CASE("attention sm80: the loader's regular copies land every chunk once", "[attention][sm80]") {
  for_configs([](auto cfg) {
    using Cfg = decltype(cfg);
    using L = sm80::Loader<Cfg>;
    check_copies<Cfg, Cfg::BQ, L::qk_chunks, Cfg::Dp>();
    check_copies<Cfg, Cfg::BKV, L::qk_chunks, Cfg::Dp>();
    check_copies<Cfg, Cfg::BKV, L::v_chunks, Cfg::Dvp>();
  });
  // the head dimensions whose rows the regular copies serve (power-of-two chunks within the storage)
  STATIC_REQUIRE(sm80::Loader<Cfg80<96, 96, 4, 64>>::regular<12, 128>);
  STATIC_REQUIRE(!sm80::Loader<Cfg80<136, 24, 8, 16>>::regular<18, 192>);
}
