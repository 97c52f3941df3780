// attention::Config: an attention kernel's types, head dimensions, tiles, consumers, stages and
// score chain, checked once at compile time (one static_assert per problem, naming the fix).
//
//   using Cfg = attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<128, 128>,
//                                 attention::Consumers<2>, attention::Stages<2>,
//                                 attention::ScoreChain<attention::Causal<attention::BottomRight>>>;
//
// The Hopper kernel (attention/sm90/kernel.hpp): each of the Consumers warpgroups owns 64 of the
// BlockTile's BQ query rows (BQ = 64 Consumers) and walks the tile's blocks of BKV keys; K and V
// come through rings of Stages stages each.
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
template <int C>
struct Consumers {
  static constexpr int value = C;
};
template <int S>
struct Stages {
  static constexpr int value = S;
};

template <class Arch_, class Element_, class HeadDim_, class Tile_, class Consumers_, class Stages_, class Chain_ = NoMask>
struct Config {
  using Arch = Arch_;
  using Element = Element_;
  using Chain = Chain_;
  static constexpr int D = HeadDim_::qk, Dv = HeadDim_::v, BQ = Tile_::q, BKV = Tile_::kv;
  static constexpr int consumers = Consumers_::value, stages = Stages_::value;
  static constexpr int threads = 128 * (consumers + 1);

  static_assert(std::is_same_v<Arch, arch::Sm90>, "attention::Config: the attention kernel runs on arch::Sm90 so far; use arch::Sm90");
  static_assert(std::is_same_v<Element, bfloat16_t> || std::is_same_v<Element, half_t>,
                "attention::Config: Q, K, V and O are bfloat16_t or half_t (float softmax and accumulation); use one of those");
  static_assert(D % 64 == 0 && Dv % 64 == 0 && D <= 256 && Dv <= 256,
                "attention::Config: the Hopper kernel's head dimensions are 64, 128, 192 or 256 (whole 128-byte swizzle spans); use "
                "HeadDim<64>, <128>, <192> or <256> (pad other head dimensions with zeros)");
  static_assert(consumers >= 1 && consumers <= 2 && BQ == 64 * consumers,
                "attention::Config: each consumer warpgroup owns 64 query rows; use BlockTile<64 * C, ...> with Consumers<C>, C = 1 or 2");
  static_assert(BKV % 16 == 0 && BKV >= 16 && BKV <= 256,
                "attention::Config: a block of keys is the scores' wgmma N and P V's K: 16 to 256 in steps of 16; use BlockTile<..., 128>");
  static_assert(stages >= 2 && stages <= 4, "attention::Config: K and V take 2 to 4 stages each; use Stages<2>");

  // Shared memory: Q, the K and V rings and their barriers (attention/sm90/storage.hpp).
  static constexpr int q_bytes = BQ * D * int(sizeof(Element));
  static constexpr int k_bytes = BKV * D * int(sizeof(Element)), v_bytes = BKV * Dv * int(sizeof(Element));
  static constexpr int smem_bytes = q_bytes + stages * (k_bytes + v_bytes) + 1024;
  static_assert(smem_bytes <= 227 * 1024,
                "attention::Config: Q and the K and V rings pass the 227 KB of shared memory a block has; use fewer Stages or a smaller "
                "BlockTile");
};

}  // namespace tessera::attention
