// attention::Config: an attention kernel's types, head dimensions, tiles, workers, stages and
// score chain, checked once at compile time (one static_assert per problem, naming the fix).
//
//   using Cfg = attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<128, 128>,
//                                 attention::Consumers<2>, attention::Stages<2>,
//                                 attention::ScoreChain<attention::Causal<attention::BottomRight>>>;
//   using Cfg80 = attention::Config<arch::Sm80, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<64, 64>,
//                                   attention::Warps<4>, attention::Stages<2>>;
//
// The Hopper kernel (arch::Sm90, attention/sm90/kernel.hpp): each of the Consumers warpgroups owns
// 64 of the BlockTile's BQ query rows (BQ = 64 Consumers) and walks the tile's blocks of BKV keys;
// K and V come through rings of Stages stages each. FlashAttention-3's tiles are a good start: 128
// x 176 at head dim 128 (128 x 128 for short or causal sequences), 192 x 128 with three consumers
// at 64 (128 x 128 for causal sequences under 2k), 128 x 80 at 256 (128 x 64 causal or under 1k keys).
// The sm80 kernel (arch::Sm80: mma.sync, so sm_80 and every later GPU, the H100 included;
// attention/sm80/kernel.hpp): each of the Warps warps owns 16 of the BQ query rows (BQ = 16 Warps);
// K and V come through one cp.async ring of Stages stages. 64 x 64 with Warps<4> up to head dim
// 192, 64 x 32 at 256 (docs/performance.md has the H100's numbers).
// The gfx9 kernel (arch::Gfx90a / arch::Gfx940 under hipcc: MFMA; attention/gfx9/kernel.hpp): each
// of the Warps wavefronts (64 lanes) owns 32 of the BQ query rows (BQ = 32 Warps); K and V are
// double-buffered in LDS (Stages<2>). 64 x 64 with Warps<2> up to head dim 128, 64 x 32 at 256
// (the 64 KB of LDS).
#pragma once

#include <type_traits>

#include "tessera/arch/arch.hpp"
#include "tessera/attention/score_chain.hpp"
#include "tessera/core/numeric_types.hpp"

namespace tessera::attention {

template <int QK, int V = QK>
struct HeadDim {
  static constexpr int qk = QK, v = V;
};
template <int Q, int KV>
struct BlockTile {
  static constexpr int q = Q, kv = KV;
};
// C consumer warpgroups; Turns: the two take turns issuing their GEMMs (FlashAttention-3's
// ping-pong: one's softmax under the other's GEMMs). Off by default: with the overlap inside each
// consumer (attention/sm90/mainloop.hpp), turns measured 1-3% slower at head dims 128 and 256 on
// the H100 (docs/performance.md).
template <int C, bool Turns = false>
struct Consumers {
  static constexpr int value = C;
  static constexpr bool turns = Turns;
};
// W warps of the sm80 kernel, each owning 16 query rows; W wavefronts of the gfx9 kernel, 32 each.
template <int W>
struct Warps {
  static constexpr int value = W;
};
template <int S>
struct Stages {
  static constexpr int value = S;
};

template <class T>
inline constexpr bool is_consumers = false;
template <int C, bool Turns>
inline constexpr bool is_consumers<Consumers<C, Turns>> = true;
template <class T>
inline constexpr bool is_warps = false;
template <int W>
inline constexpr bool is_warps<Warps<W>> = true;
template <class T>
inline constexpr bool takes_turns = false;
template <int C, bool Turns>
inline constexpr bool takes_turns<Consumers<C, Turns>> = Turns;

// Workers_: Consumers<C> (arch::Sm90) or Warps<W> (arch::Sm80, arch::Gfx90a / arch::Gfx940).
template <class Arch_, class Element_, class HeadDim_, class Tile_, class Workers_, class Stages_, class Chain_ = NoMask>
struct Config {
  using Arch = Arch_;
  using Element = Element_;  // Q, K and V
  using Chain = Chain_;
  static constexpr bool sm80 = std::is_same_v<Arch, arch::Sm80>, sm90 = std::is_same_v<Arch, arch::Sm90>;
  static constexpr bool gfx9 = std::is_same_v<Arch, arch::Gfx90a> || std::is_same_v<Arch, arch::Gfx940>;
  static constexpr bool sm80_ok = sm80 && is_warps<Workers_>, sm90_ok = sm90 && is_consumers<Workers_>;
  static constexpr bool gfx9_ok = gfx9 && is_warps<Workers_>;
  // fp8 (float8_e4m3_t Q, K, V with per-tensor scales; O in bfloat16_t): P V runs in 8 bits on a
  // V^T the producer writes (attention/sm90/transpose_v.hpp), P scaled by 2^8 (FlashAttention-3's
  // offset: e4m3's range, not its subnormals).
  static constexpr bool fp8 = std::is_same_v<Element, float8_e4m3_t>;
  using Output = std::conditional_t<fp8, bfloat16_t, Element>;  // O
  static constexpr int D = HeadDim_::qk, Dv = HeadDim_::v, BQ = Tile_::q, BKV = Tile_::kv;
  // The head dimensions as the kernels hold them (the sm80 and gfx9 kernels: 16-bit spans): whole 128-byte swizzle spans (64 16-bit
  // or 128 8-bit columns; TMA fills the columns past D and Dv with zeros: they add nothing to
  // Q K^T, and O's columns past Dv are not stored). S's k-steps stop at D; P V computes O's Dvp
  // columns, so the Hopper kernel holds a 16-bit V whose Dv is not whole 64-column spans in
  // 32-column ones (64-byte swizzle: head dim 96 computes 96 columns of O, not 128).
  static constexpr int span = fp8 ? 128 : 64;
  static constexpr int v_span = sm90 && !fp8 && Dv % 64 != 0 ? 32 : span;
  static constexpr int Dp = (D + span - 1) / span * span, Dvp = (Dv + v_span - 1) / v_span * v_span;
  static constexpr int consumers = sm90_ok ? Workers_::value : 0, stages = Stages_::value;
  static constexpr bool turns = takes_turns<Workers_>;
  static constexpr int warps = sm80_ok || gfx9_ok ? Workers_::value : 4 * (consumers + 1);  // of 32 threads; gfx9: 64
  static constexpr int threads = (gfx9 ? 64 : 32) * warps;
  // The registers of a producer and of a consumer thread (setmaxnreg: the split must fit the 64K
  // of a block launched with `threads` threads). Consumers hold S (BKV / 2 floats), P (BKV / 4
  // words) and O (Dv / 2 floats) at once: 196 at 128 x 176 and head dim 128, where 240 measured
  // 1.5% faster than 232; 232 elsewhere (at head dim 256, 240 measured 7% slower).
  // fp8: 56 / 224, the producer's threads transposing V.
  static constexpr int consumer_registers = consumers == 3 ? 160 : fp8 ? 224 : BKV > 128 && Dvp <= 128 ? 240 : 232;
  static constexpr int producer_registers = consumers == 3 ? 32 : fp8 ? 56 : consumer_registers == 240 ? 24 : 40;

  static_assert(sm80 || sm90 || gfx9, "attention::Config: the attention kernels run on arch::Sm80 (mma.sync; sm_80 and later), "
                                      "arch::Sm90 (Hopper) or arch::Gfx90a / arch::Gfx940 (MFMA); use one of those");
  static_assert(std::is_same_v<Element, bfloat16_t> || std::is_same_v<Element, half_t> || fp8,
                "attention::Config: Q, K, V and O are bfloat16_t or half_t (float softmax and accumulation), or Q, K and V "
                "float8_e4m3_t with O bfloat16_t; use one of those");
  static_assert(!fp8 || sm90, "attention::Config: fp8 attention is the Hopper kernel's; use arch::Sm90, or bfloat16_t / half_t");
  static_assert(!fp8 || !sm90 || (D % 16 == 0 && Dv % 128 == 0 && BKV % 128 == 0),
                "attention::Config: fp8 attention takes head dimensions D a multiple of 16 and Dv of 128 (V^T's transposition works "
                "on 128-byte rows) and blocks of 128 or 256 keys (P V's 32-key steps on 128-byte rows of V^T); use HeadDim<128> or "
                "<256> and BlockTile<128, 128>");
  static_assert(D % 8 == 0 && Dv % 8 == 0 && D >= 8 && Dv >= 8 && D <= 256 && Dv <= 256,
                "attention::Config: head dimensions are multiples of 8 (16-byte rows) from 8 to 256; use HeadDim<D, Dv> with such D and "
                "Dv (pad others with zeros: the scores do not change)");
  static_assert(!sm90 || is_consumers<Workers_>,
                "attention::Config: the Hopper kernel's workers are Consumers<C> (warpgroups of 64 query rows); use Consumers<2>, or "
                "arch::Sm80 for Warps<W>");
  static_assert(!sm80 || is_warps<Workers_>,
                "attention::Config: the sm80 kernel's workers are Warps<W> (warps of 16 query rows); use Warps<4> with BlockTile<64, ...>");
  static_assert(!gfx9 || is_warps<Workers_>,
                "attention::Config: the gfx9 kernel's workers are Warps<W> (wavefronts of 32 query rows); use Warps<2> with BlockTile<64, "
                "...>");

  // ---- the Hopper kernel ----
  static_assert(!sm90_ok || (consumers >= 1 && consumers <= 3 && BQ == 64 * consumers),
                "attention::Config: each consumer warpgroup owns 64 query rows; use BlockTile<64 * C, ...> with Consumers<C>, C = 1, 2 or 3");
  static_assert(!sm90_ok || !turns || consumers == 2, "attention::Config: turns are taken between two consumers; use Consumers<2, true> or no turns");
  static_assert(!sm90_ok || !fp8 || consumers == 2, "attention::Config: fp8 attention runs on two consumers; use Consumers<2>");
  static_assert(!sm90_ok || consumers < 3 || BKV / 2 + BKV / 4 + Dvp / 2 <= 128,
                "attention::Config: three consumers have 160 registers a thread, too few for S, P and O of this BlockTile and head "
                "dimension; use BlockTile<192, 128> at head dimension 64, or two consumers");
  static_assert(!sm90_ok || (BKV % 16 == 0 && BKV >= 16 && BKV <= 256),
                "attention::Config: a block of keys is the scores' wgmma N and P V's K: 16 to 256 in steps of 16; use BlockTile<..., 128>");
  static_assert(!sm90_ok || (stages >= 2 && stages <= 4), "attention::Config: K and V take 2 to 4 stages each; use Stages<2>");

  // ---- the sm80 kernel ----
  static_assert(!sm80_ok || ((warps == 1 || warps == 2 || warps == 4 || warps == 8) && BQ == 16 * warps),
                "attention::Config: each warp of the sm80 kernel owns 16 query rows; use BlockTile<16 * W, ...> with Warps<W>, W = 1, 2, "
                "4 or 8");
  static_assert(!sm80_ok || (BKV % 16 == 0 && BKV >= 16 && BKV <= 256),
                "attention::Config: a block of keys is whole k-steps of P V (16 keys); use BlockTile<..., 64> (16 to 256 in steps of 16)");
  static_assert(!sm80_ok || (stages >= 2 && stages <= 4), "attention::Config: the sm80 kernel's K and V ring takes 2 to 4 stages; use Stages<2>");

  // ---- the gfx9 kernel ----
  static_assert(!gfx9_ok || ((warps == 1 || warps == 2 || warps == 4) && BQ == 32 * warps),
                "attention::Config: each wavefront of the gfx9 kernel owns 32 query rows; use BlockTile<32 * W, ...> with Warps<W>, W = 1, "
                "2 or 4");
  static_assert(!gfx9_ok || BKV == 32 || BKV == 64 || BKV == 128,
                "attention::Config: the gfx9 kernel's blocks of keys are 32, 64 or 128 (whole MFMA atoms, power-of-two LDS rows of Vᵀ); "
                "use BlockTile<..., 64>");
  static_assert(!gfx9_ok || stages == 2, "attention::Config: the gfx9 kernel double-buffers K and V in LDS; use Stages<2>");

  // Shared memory. Hopper: Q, the K and V rings and their barriers (attention/sm90/storage.hpp);
  // sm80: Q and the K and V ring (attention/sm80/storage.hpp), both in whole spans of 64 columns;
  // gfx9: two buffers of K and Vᵀ (Q passes through the second before the first block).
  static constexpr int q_bytes = BQ * Dp * int(sizeof(Element));
  // (fp8: V as loaded, and V^T.)
  static constexpr int k_bytes = BKV * Dp * int(sizeof(Element)), v_bytes = (fp8 ? 2 : 1) * BKV * Dvp * int(sizeof(Element));
  static constexpr int smem_bytes = gfx9 ? 2 * (k_bytes + v_bytes) : q_bytes + stages * (k_bytes + v_bytes) + (sm80 ? 0 : 1024);
  // Q's stages: two where they fit (the next tile's Q loads during this tile), else one.
  static constexpr int q_stages = smem_bytes + q_bytes <= 227 * 1024 ? 2 : 1;
  // O leaves through the tile's own Q stage and TMA (attention/sm90/epilogue.hpp) where the stage
  // holds it and a second Q stage lets the next tile start meanwhile (Q's release waits for the
  // store); not with three consumers (at 160 registers the staging spilled) nor for fp8 (O in 16
  // bits does not fit an 8-bit Q stage).
  static constexpr bool staged_o = !fp8 && Dvp <= Dp && q_stages == 2 && consumers <= 2;
  // The Hopper consumers go from tile to tile without a pause where Q has one stage: a tile's last
  // P V, then the next tile's Q (it could load only after the tile's last S) and first S, the
  // tile's epilogue under that S (attention/sm90/mainloop.hpp's cross()). H100 (docs/performance.md):
  // hd 256 128 x 80 3-4 % faster than pausing, 128 x 64 the same; with two Q stages (the next Q
  // already landed) pausing measured the same or 1-2 % faster, on 128 x 176 (240 registers) 1-2 %
  // either way, and a stage that changes scores spilled there.
  static constexpr bool across_tiles = sm90_ok && q_stages == 1 && BKV <= 128 && consumers <= 2;
  static_assert(!across_tiles || !staged_o, "attention::Config: a tile's O staged in its Q stage while the next tile's Q waits for "
                                           "that stage would deadlock; keep across_tiles to Configs of one Q stage");
  static_assert(!sm80_ok || smem_bytes <= arch::Sm80::max_smem_per_block,
                "attention::Config: Q and the K and V ring pass the 163 KB of shared memory an sm_80 block has; use fewer Stages or a "
                "smaller BlockTile");
  static_assert(!gfx9_ok || smem_bytes <= 64 * 1024,
                "attention::Config: two buffers of K and V pass the 64 KB of LDS a workgroup has; use a smaller BlockTile (64 x 32 with "
                "Warps<2> at head dimension 256)");
  static_assert(!gfx9_ok || q_bytes <= k_bytes + v_bytes,
                "attention::Config: the gfx9 kernel passes Q through one buffer of K and V, which is smaller than Q's tile; use a BKV at "
                "least BQ / 2 (BlockTile<64, 32> or <128, 64>)");
  static_assert(!sm90_ok || smem_bytes <= 227 * 1024,
                "attention::Config: Q and the K and V rings pass the 227 KB of shared memory a block has; use fewer Stages or a smaller "
                "BlockTile");
};

}  // namespace tessera::attention
