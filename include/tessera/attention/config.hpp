// attention::Config: an attention kernel's types, head dimensions, tiles, consumers, stages and
// score chain, checked once at compile time (one static_assert per problem, naming the fix).
//
//   using Cfg = attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<128, 128>,
//                                 attention::Consumers<2>, attention::Stages<2>,
//                                 attention::ScoreChain<attention::Causal<attention::BottomRight>>>;
//
// The Hopper kernel (attention/sm90/kernel.hpp): each of the Consumers warpgroups owns 64 of the
// BlockTile's BQ query rows (BQ = 64 Consumers) and walks the tile's blocks of BKV keys; K and V
// come through rings of Stages stages each. FlashAttention-3's tiles are a good start: 128 x 176
// at head dim 128 (128 x 128 for short or causal sequences), 192 x 128 with three consumers at 64,
// 128 x 64 at 256.
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
template <int S>
struct Stages {
  static constexpr int value = S;
};

template <class Arch_, class Element_, class HeadDim_, class Tile_, class Consumers_, class Stages_, class Chain_ = NoMask>
struct Config {
  using Arch = Arch_;
  using Element = Element_;  // Q, K and V
  using Chain = Chain_;
  // fp8 (float8_e4m3_t Q, K, V with per-tensor scales; O in bfloat16_t): P V runs in 8 bits on a
  // V^T the producer writes (attention/sm90/transpose_v.hpp), P scaled by 2^8 (FlashAttention-3's
  // offset: e4m3's range, not its subnormals).
  static constexpr bool fp8 = std::is_same_v<Element, float8_e4m3_t>;
  using Output = std::conditional_t<fp8, bfloat16_t, Element>;  // O
  static constexpr int D = HeadDim_::qk, Dv = HeadDim_::v, BQ = Tile_::q, BKV = Tile_::kv;
  // The head dimensions as the Hopper kernel holds them: whole 128-byte swizzle spans (64 16-bit
  // or 128 8-bit columns; TMA fills the columns past D and Dv with zeros: they add nothing to
  // Q K^T, and O's columns past Dv are not stored). S's k-steps stop at D; P V computes O's Dvp
  // columns.
  static constexpr int span = fp8 ? 128 : 64;
  static constexpr int Dp = (D + span - 1) / span * span, Dvp = (Dv + 63) / 64 * 64;
  static constexpr int consumers = Consumers_::value, stages = Stages_::value;
  static constexpr bool turns = Consumers_::turns;
  static constexpr int threads = 128 * (consumers + 1);
  // The registers of a producer and of a consumer thread (setmaxnreg: the split must fit the 64K
  // of a block launched with `threads` threads). Consumers hold S (BKV / 2 floats), P (BKV / 4
  // words) and O (Dv / 2 floats) at once: 196 at 128 x 176 and head dim 128, where 240 measured
  // 1.5% faster than 232; 232 elsewhere (at head dim 256, 240 measured 7% slower).
  // fp8: 56 / 224, the producer's threads transposing V.
  static constexpr int consumer_registers = consumers == 3 ? 160 : fp8 ? 224 : BKV > 128 && Dvp <= 128 ? 240 : 232;
  static constexpr int producer_registers = consumers == 3 ? 32 : fp8 ? 56 : consumer_registers == 240 ? 24 : 40;

  static_assert(std::is_same_v<Arch, arch::Sm90>, "attention::Config: the attention kernel runs on arch::Sm90 so far; use arch::Sm90");
  static_assert(std::is_same_v<Element, bfloat16_t> || std::is_same_v<Element, half_t> || fp8,
                "attention::Config: Q, K, V and O are bfloat16_t or half_t (float softmax and accumulation), or Q, K and V "
                "float8_e4m3_t with O bfloat16_t; use one of those");
  static_assert(!fp8 || (D % 16 == 0 && Dv % 128 == 0 && BKV % 128 == 0),
                "attention::Config: fp8 attention takes head dimensions D a multiple of 16 and Dv of 128 (V^T's transposition works "
                "on 128-byte rows) and blocks of 128 or 256 keys (P V's 32-key steps on 128-byte rows of V^T); use HeadDim<128> or "
                "<256> and BlockTile<128, 128>");
  static_assert(D % 8 == 0 && Dv % 8 == 0 && D >= 8 && Dv >= 8 && D <= 256 && Dv <= 256,
                "attention::Config: head dimensions are multiples of 8 (16-byte rows) from 8 to 256; use HeadDim<D, Dv> with such D and "
                "Dv (pad others with zeros: the scores do not change)");
  static_assert(consumers >= 1 && consumers <= 3 && BQ == 64 * consumers,
                "attention::Config: each consumer warpgroup owns 64 query rows; use BlockTile<64 * C, ...> with Consumers<C>, C = 1, 2 or 3");
  static_assert(!turns || consumers == 2, "attention::Config: turns are taken between two consumers; use Consumers<2, true> or no turns");
  static_assert(!fp8 || consumers == 2, "attention::Config: fp8 attention runs on two consumers; use Consumers<2>");
  static_assert(consumers < 3 || BKV / 2 + BKV / 4 + Dvp / 2 <= 128,
                "attention::Config: three consumers have 160 registers a thread, too few for S, P and O of this BlockTile and head "
                "dimension; use BlockTile<192, 128> at head dimension 64, or two consumers");
  static_assert(BKV % 16 == 0 && BKV >= 16 && BKV <= 256,
                "attention::Config: a block of keys is the scores' wgmma N and P V's K: 16 to 256 in steps of 16; use BlockTile<..., 128>");
  static_assert(stages >= 2 && stages <= 4, "attention::Config: K and V take 2 to 4 stages each; use Stages<2>");

  // Shared memory: Q, the K and V rings and their barriers (attention/sm90/storage.hpp).
  static constexpr int q_bytes = BQ * Dp * int(sizeof(Element));
  // (fp8: V as loaded, and V^T.)
  static constexpr int k_bytes = BKV * Dp * int(sizeof(Element)), v_bytes = (fp8 ? 2 : 1) * BKV * Dvp * int(sizeof(Element));
  static constexpr int smem_bytes = q_bytes + stages * (k_bytes + v_bytes) + 1024;
  // Q's stages: two where they fit (the next tile's Q loads during this tile), else one.
  static constexpr int q_stages = smem_bytes + q_bytes <= 227 * 1024 ? 2 : 1;
  static_assert(smem_bytes <= 227 * 1024,
                "attention::Config: Q and the K and V rings pass the 227 KB of shared memory a block has; use fewer Stages or a smaller "
                "BlockTile");
};

}  // namespace tessera::attention
