// Masks and score modifiers as composable stages, chained like the epilogue's (epilogue/chain.hpp).
// A stage sees each score in natural units (x = scale * q . k) with its coordinate and returns
// the new score; a masked score is -infinity, and a score masked by one stage stays masked through
// the later ones (the library's stages keep -infinity; a stage of your own should too).
//
//   using Mask = attention::ScoreChain<attention::Softcap, attention::Causal<attention::BottomRight>>;
//   Mask m{{30.0f}, {}};
//   float s = m.score(x, Coord{b, h, q, k, q_len, k_len});
//
// A stage is any type with
//   TESSERA_HD float score(float x, Coord const& c) const;
// and may add what lets a kernel skip work (each has a safe default):
//   TESSERA_HD BlockKind block(Block const& b) const;     // kSkip: every score of b masked (the
//                                                         // block is not computed), kFull: none
//                                                         // masked; default kPartial
//   TESSERA_HD KeyRange keys(Block const& b) const;       // the keys any query of b may see;
//                                                         // default all of [0, k_len)
//   static constexpr bool masks = ...;                    // may return -infinity (default true)
//   static constexpr bool modifies = ...;                 // changes finite scores (default true)
//   static constexpr bool exact_keys = ...;               // keys() of a block of one query is
//                                                         // exactly the keys it sees, one run
//                                                         // (default false)
//   Status check() const;                                 // host: what is wrong with its parameters
//   Status check(Problem const&) const;                   // and with them for this problem
//                                                         // (Attention::can_implement asks both,
//                                                         // check() first)
// A stage that neither modifies scores nor masks the scores of a block kFull costs nothing there:
// the kernel applies the chain only to partial blocks, or everywhere when a stage modifies.
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "tessera/attention/coord.hpp"
#include "tessera/attention/problem.hpp"
#include "tessera/core/config.hpp"
#include "tessera/core/status.hpp"
#include "tessera/core/tuple.hpp"

namespace tessera::attention {

template <class S>
concept ScoreStage = requires(S const& s, float x, Coord c) {
  { s.score(x, c) } -> std::convertible_to<float>;
};

// The optional parts of a stage, with their defaults.
template <class S>
inline constexpr bool stage_masks = [] {
  if constexpr (requires { { S::masks } -> std::convertible_to<bool>; }) return bool(S::masks);
  else return true;
}();
template <class S>
inline constexpr bool stage_modifies = [] {
  if constexpr (requires { { S::modifies } -> std::convertible_to<bool>; }) return bool(S::modifies);
  else return true;
}();
template <class S>
inline constexpr bool stage_exact_keys = [] {
  if constexpr (requires { { S::exact_keys } -> std::convertible_to<bool>; }) return bool(S::exact_keys);
  else return false;
}();
template <class S>
TESSERA_HD constexpr BlockKind stage_block(S const& s, Block const& b) {
  if constexpr (requires { { s.block(b) } -> std::convertible_to<BlockKind>; }) return s.block(b);
  else return stage_masks<S> ? BlockKind::kPartial : BlockKind::kFull;
}
// Whether a stage limits the keys a block's queries see (has keys()).
template <class S>
inline constexpr bool stage_limits_keys = requires(S const& s, Block const& b) {
  { s.keys(b) } -> std::convertible_to<KeyRange>;
};

template <class S>
TESSERA_HD constexpr KeyRange stage_keys(S const& s, Block const& b) {
  if constexpr (stage_limits_keys<S>) return s.keys(b);
  else return KeyRange{0, b.k_len};
}

template <class... Stages>
struct ScoreChain {
  static_assert((ScoreStage<Stages> && ...),
                "attention::ScoreChain: every stage needs `TESSERA_HD float score(float x, Coord const&) const`; see "
                "attention/masks.hpp for examples");
  Tuple<Stages...> stages;

  constexpr ScoreChain() = default;
  TESSERA_HD constexpr ScoreChain(Stages const&... s) requires(sizeof...(Stages) > 0) : stages(s...) {}

  static constexpr int size = int(sizeof...(Stages));
  // Whether any stage may mask, and whether any changes finite scores.
  static constexpr bool masks = (stage_masks<Stages> || ...);
  static constexpr bool modifies = (stage_modifies<Stages> || ...);
  // Whether any stage limits the keys (then tiles differ in work: attention/tile_order.hpp).
  static constexpr bool limits_keys = (stage_limits_keys<Stages> || ...);
  // Whether keys() of a one-query block is exactly what the chain lets that query see: no stage
  // changes scores and every stage that masks says its keys() are exact (a kernel then masks a
  // row by the ends of its run of keys, without calling score()).
  static constexpr bool exact_keys = sizeof...(Stages) > 0 && !modifies && ((!stage_masks<Stages> || stage_exact_keys<Stages>) && ...);
  // Whether the chain splits into stages that only change scores and stages that only mask with
  // exact key runs: then score(x, c) is modify(x, c) on the keys of c.q's run, -infinity elsewhere
  // (the library's modifiers keep -infinity), and a kernel applies modify() to every score and the
  // runs' ends only where a block is partial.
  static constexpr bool exact_masks = sizeof...(Stages) > 0 && modifies && masks &&
                                      (((stage_masks<Stages> && stage_exact_keys<Stages> && !stage_modifies<Stages>) ||
                                        (!stage_masks<Stages> && stage_modifies<Stages>)) &&
                                       ...);

  // The stages that change scores, in order (the masks left out): see exact_masks.
  TESSERA_HD float modify(float x, Coord const& c) const {
    return fold(stages, x, [&c](float acc, auto const& stage) {
      if constexpr (stage_modifies<std::remove_cvref_t<decltype(stage)>>) return float(stage.score(acc, c));
      else return acc;
    });
  }

  // The score after every stage, in order.
  TESSERA_HD float score(float x, Coord const& c) const {
    return fold(stages, x, [&c](float acc, auto const& stage) { return float(stage.score(acc, c)); });
  }

  // The block: skipped if any stage masks all of it, full if none masks any of it.
  TESSERA_HD BlockKind block(Block const& b) const {
    if (b.q1 <= b.q0 || b.k1 <= b.k0) return BlockKind::kSkip;
    bool full = true, skip = false;
    for_each(stages, [&](auto const& stage) {
      BlockKind const k = stage_block(stage, b);
      skip = skip || k == BlockKind::kSkip;
      full = full && k == BlockKind::kFull;
    });
    return skip ? BlockKind::kSkip : full ? BlockKind::kFull : BlockKind::kPartial;
  }

  // Host: the first stage whose parameters are wrong, with its message (success where none is);
  // the second form also asks each stage's check(Problem), after its check().
  Status check() const { return check_stages(std::index_sequence_for<Stages...>{}, nullptr); }
  Status check(Problem const& p) const { return check_stages(std::index_sequence_for<Stages...>{}, &p); }

  // The keys a query of b may see: every stage's range, intersected, within [0, k_len).
  TESSERA_HD KeyRange keys(Block const& b) const {
    KeyRange r{0, b.k_len};
    for_each(stages, [&](auto const& stage) {
      KeyRange const s = stage_keys(stage, b);
      r.lo = s.lo > r.lo ? s.lo : r.lo;
      r.hi = s.hi < r.hi ? s.hi : r.hi;
    });
    return r;
  }

 private:
  template <std::size_t... Is>
  Status check_stages(std::index_sequence<Is...>, [[maybe_unused]] Problem const* p) const {
    Status out = Status::success();
    ((out.ok() ? void(out = check_stage(get<Is>(stages), p)) : void()), ...);
    return out;
  }
  template <class S>
  static Status check_stage(S const& stage, [[maybe_unused]] Problem const* p) {
    if constexpr (requires { { stage.check() } -> std::same_as<Status>; }) {
      if (Status s = stage.check(); !s) return s;
    }
    if constexpr (requires { { stage.check(*p) } -> std::same_as<Status>; }) {
      if (p != nullptr) return stage.check(*p);
    }
    return Status::success();
  }
};

// No stage: every score as it is.
using NoMask = ScoreChain<>;

}  // namespace tessera::attention
