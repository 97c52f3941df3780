// The attention configuration space the profiler explores, as plain values: candidate kernels, each
// an attention::ConfigSpec (kernel, types, head dimensions, block tile, workers, stages) and the mask
// its profiler kernel is built with, valid or dropped with the reason attention::check gives, as
// tuning/conv_space.hpp holds the convolutions'.
//
//   constexpr auto space = tuning::attention_space(tuning::AttentionSpaceSize::kDefault);
//   for (int i = 0; i < space.size; ++i) if (space.items[i].valid()) ...   // what `list attention` prints
//   using Cfg = attention::ConfigOf<space.items[3].spec.config, tuning::MaskChain<space.items[3].spec.mask>>;
//
// The mask is part of a profiler kernel (the chain is a type: a kernel computes one mask) but not
// of the spec `tessera-profile emit` writes: attention::Tuned instantiates the winning specs with
// the application's chain. Three sizes, each part of the next: kReduced (CI and the gpu preset:
// the Hopper kernel in bf16 at head dim 128), kDefault (the Hopper kernel in bf16 and f16 at head
// dims 64, 128, 256 and 192 / 128, two tiles each, no mask and causal, the other masks on one
// tile; in fp8 e4m3 at the head dims fp8 takes, one tile, no mask and causal; the sm80 kernel in
// bf16 and f16 at every head dim, one tile, no mask and causal) and kWide (opt-in: more tiles, one
// to three consumers, turns, 3 stages, every mask; fp8's 128 x 256; the sm80 kernel's 4 and 8
// warps). Each valid candidate is one translation unit of the profiler (6 to 24 s of nvcc for
// sm_90a on the 2-core machine, two at a time; the default space's 48 Hopper bf16 and f16 kernels
// summed to 360 to 590 s, 2026-11-26; an sm80 one is compiled for every CUDA architecture built).
#pragma once

#include <array>
#include <string>

#include "tessera/attention/config_check.hpp"
#include "tessera/tuning/attention_mask.hpp"
#include "tessera/tuning/gemm_space.hpp"

namespace tessera::tuning {

// A profiler kernel: a Config and its mask.
struct AttentionSpec {
  attention::ConfigSpec config{};
  AttentionMask mask = AttentionMask::kNone;
  friend constexpr bool operator==(AttentionSpec const&, AttentionSpec const&) = default;
};

// (found by BasicCandidateList::add through argument-dependent lookup)
constexpr attention::ConfigError check(AttentionSpec const& s) { return attention::check(s.config); }

using AttentionCandidate = BasicCandidate<AttentionSpec, attention::ConfigError>;
template <int Capacity>
using AttentionCandidateList = BasicCandidateList<AttentionCandidate, Capacity>;

enum class AttentionSpaceSize { kReduced, kDefault, kWide };

constexpr char const* attention_space_name(AttentionSpaceSize s) {
  return s == AttentionSpaceSize::kReduced ? "reduced" : s == AttentionSpaceSize::kDefault ? "default" : "wide";
}

inline constexpr int kAttentionSpaceCapacity = 832;

namespace detail {
struct AttentionHeads {
  int d, dv;
};
inline constexpr AttentionHeads kAttentionHeadDims[] = {{64, 64}, {128, 128}, {256, 256}, {192, 128}};

struct AttentionTile {
  int bq, bkv;
};

constexpr attention::ConfigSpec attention_spec(Dtype t, AttentionHeads h, AttentionTile tile, int stages, bool turns = false) {
  return {.arch_cc = 90, .element = t, .head_dim = h.d, .head_dim_v = h.dv, .bq = tile.bq, .bkv = tile.bkv, .consumers = tile.bq / 64,
          .turns = turns, .stages = stages};
}
// The sm80 kernel's: a warp per 16 query rows.
constexpr attention::ConfigSpec attention_spec_sm80(Dtype t, AttentionHeads h, AttentionTile tile, int stages) {
  return {.arch_cc = 80, .element = t, .head_dim = h.d, .head_dim_v = h.dv, .bq = tile.bq, .bkv = tile.bkv, .consumers = 0,
          .warps = tile.bq / 16, .stages = stages};
}

// The head dimensions fp8 takes (Dv a multiple of 128: V^T's rows): all but 64.
constexpr bool fp8_heads(AttentionHeads h) { return h.dv % 128 == 0 && h.d % 16 == 0; }

// The sm80 kernel's tile, attention/config.hpp's advice (docs/performance.md's H100 sweep of the
// sm80 kernel): 64 x 64 on four warps up to head dim 192, 64 x 32 at 256 (the best there, 267
// against 236 TFLOP/s for 64 x 64 at 4k).
constexpr AttentionTile sm80_tile(AttentionHeads h) { return h.d == 256 ? AttentionTile{64, 32} : AttentionTile{64, 64}; }

// The default space's two tiles per head dimension, attention/config.hpp's advice (FlashAttention-
// 3's tiles): 128 x 128 (short or causal sequences) and 128 x 176 at head dim 128; 128 x 128 and
// 192 x 128 (three consumers) at 64; 128 x 64 and 128 x 80 at 256, where 128 keys of K and V pass
// the shared memory; 128 x 128 and 128 x 64 at 192 / 128.
constexpr std::array<AttentionTile, 2> default_tiles(AttentionHeads h) {
  if (h.d == 64) return {AttentionTile{128, 128}, AttentionTile{192, 128}};
  if (h.d == 128) return {AttentionTile{128, 128}, AttentionTile{128, 176}};
  if (h.d == 256) return {AttentionTile{128, 64}, AttentionTile{128, 80}};
  return {AttentionTile{128, 128}, AttentionTile{128, 64}};
}

template <int Cap>
constexpr void add_attention_default(AttentionCandidateList<Cap>& out, bool reduced) {
  for (Dtype t : {Dtype::kBf16, Dtype::kF16}) {
    if (reduced && t != Dtype::kBf16) continue;
    for (AttentionHeads h : kAttentionHeadDims) {
      if (reduced && h.d != 128) continue;
      std::array<AttentionTile, 2> const tiles = default_tiles(h);
      for (AttentionMask m : {AttentionMask::kNone, AttentionMask::kCausal})
        for (AttentionTile tile : tiles) out.add({attention_spec(t, h, tile, 2), m});
      // The other masks on the first tile: they rank the same tiles as causal does, and each is a
      // kernel of its own.
      for (AttentionMask m : {AttentionMask::kCausalTopLeft, AttentionMask::kWindow}) out.add({attention_spec(t, h, tiles[0], 2), m});
    }
  }
  if (reduced) return;
  // fp8 e4m3: 128 x 128 (blocks of 128 or 256 keys; 128 x 128 is the device test's and the bench's
  // tile at head dims 128 and 256).
  for (AttentionHeads h : kAttentionHeadDims)
    if (fp8_heads(h))
      for (AttentionMask m : {AttentionMask::kNone, AttentionMask::kCausal}) out.add({attention_spec(Dtype::kE4m3, h, {128, 128}, 2), m});
  // The sm80 kernel: what a build for sm_80 (an A100) runs, and the Hopper profiler can time.
  for (Dtype t : {Dtype::kBf16, Dtype::kF16})
    for (AttentionHeads h : kAttentionHeadDims)
      for (AttentionMask m : {AttentionMask::kNone, AttentionMask::kCausal}) out.add({attention_spec_sm80(t, h, sm80_tile(h), 2), m});
}

// Adds s unless one of the list's first `known` candidates (the default space's) is s. (The wide
// sweep's own candidates differ from each other: comparing them with the default space's only keeps
// the constexpr evaluation within nvcc's limits.)
template <int Cap>
constexpr void add_new(AttentionCandidateList<Cap>& out, int known, AttentionSpec const& s) {
  for (int i = 0; i < known; ++i)
    if (out.items[i].spec == s) return;
  out.add(s);
}

// The wide sweep: one to three consumers, key blocks of 64 to 192, 2 and 3 stages, turns between
// two consumers, every mask (the ones past the shared memory or, with three consumers, the
// registers are dropped with attention::Config's message); fp8's blocks of 128 and 256 keys; the
// sm80 kernel's 64 and 128 query rows (4 and 8 warps) with 32 to 128 keys, every mask on 64 x 64.
// After the default space's first `known` candidates, those it lacks.
template <int Cap>
constexpr void add_attention_wide(AttentionCandidateList<Cap>& out, int known) {
  constexpr AttentionTile tiles[] = {{128, 64}, {128, 128}, {128, 176}, {128, 192}, {64, 64}, {64, 128}, {192, 64}, {192, 128}};
  constexpr AttentionMask masks[] = {AttentionMask::kNone, AttentionMask::kCausal, AttentionMask::kCausalTopLeft, AttentionMask::kWindow};
  for (Dtype t : {Dtype::kBf16, Dtype::kF16})
    for (AttentionHeads h : kAttentionHeadDims)
      for (AttentionMask m : masks) {
        for (AttentionTile tile : tiles)
          for (int stages : {2, 3}) add_new(out, known, {attention_spec(t, h, tile, stages), m});
        for (AttentionTile tile : {AttentionTile{128, 128}, AttentionTile{128, 176}}) add_new(out, known, {attention_spec(t, h, tile, 2, true), m});
      }
  for (AttentionHeads h : kAttentionHeadDims)
    if (fp8_heads(h))
      for (AttentionMask m : masks)
        for (AttentionTile tile : {AttentionTile{128, 128}, AttentionTile{128, 256}})
          for (int stages : {2, 3}) add_new(out, known, {attention_spec(Dtype::kE4m3, h, tile, stages), m});
  constexpr AttentionTile sm80_tiles[] = {{64, 32}, {64, 64}, {64, 128}, {128, 64}, {128, 128}};
  for (Dtype t : {Dtype::kBf16, Dtype::kF16})
    for (AttentionHeads h : kAttentionHeadDims) {
      for (AttentionMask m : {AttentionMask::kNone, AttentionMask::kCausal})
        for (AttentionTile tile : sm80_tiles)
          for (int stages : {2, 3}) add_new(out, known, {attention_spec_sm80(t, h, tile, stages), m});
      for (AttentionMask m : {AttentionMask::kCausalTopLeft, AttentionMask::kWindow}) add_new(out, known, {attention_spec_sm80(t, h, {64, 64}, 2), m});
    }
}
}  // namespace detail

// Every candidate of the space of this size, valid or not (the wide space's first the default
// one's, in the same order; no candidate twice).
constexpr AttentionCandidateList<kAttentionSpaceCapacity> attention_space(AttentionSpaceSize size) {
  AttentionCandidateList<kAttentionSpaceCapacity> out;
  detail::add_attention_default(out, size == AttentionSpaceSize::kReduced);
  if (size == AttentionSpaceSize::kWide) detail::add_attention_wide(out, out.size);
  return out;
}

// "sm90_bf16_hd128_128x128_2wg_s2" (head dims 192 / 128: "hd192x128"; turns: "2wg_turns"; fp8:
// "sm90_e4m3_hd128_..."); the sm80 kernel's warps: "sm80_bf16_hd128_64x64_4w_s2".
// (Built by appending: GCC 12 at -O3 reports -Wrestrict, falsely, in "literal" + std::string&&.)
inline std::string name(attention::ConfigSpec const& s) {
  std::string n = "sm";
  auto const add = [&n](auto... parts) { ((n += parts), ...); };
  auto const i = [](int v) { return std::to_string(v); };
  add(i(s.arch_cc), "_", gemm::dtype_name(s.element), "_hd", i(s.head_dim));
  if (s.head_dim_v != s.head_dim) add("x", i(s.head_dim_v));
  add("_", i(s.bq), "x", i(s.bkv), "_");
  if (s.arch_cc == 80) add(i(s.warps), "w");
  else add(i(s.consumers), "wg", s.turns ? "_turns" : "");
  add("_s", i(s.stages));
  return n;
}
// A profiler kernel's: the Config's name and its mask, "sm90_bf16_hd128_128x128_2wg_s2_causal".
inline std::string name(AttentionSpec const& s) { return name(s.config) + "_" + attention_mask_name(s.mask); }

// The spec as C++ source: a designated initializer of tessera::attention::ConfigSpec (warps only
// for an sm80 spec: a Hopper one's is 0, the default).
inline std::string cpp_initializer(attention::ConfigSpec const& s) {
  auto const i = [](int v) { return std::to_string(v); };
  std::string const e = s.element == Dtype::kF16    ? "kF16"
                        : s.element == Dtype::kBf16 ? "kBf16"
                        : s.element == Dtype::kE4m3 ? "kE4m3"
                                                    : "kUnknown";
  return "{.arch_cc = " + i(s.arch_cc) + ", .element = tessera::gemm::Dtype::" + e + ", .head_dim = " + i(s.head_dim) +
         ", .head_dim_v = " + i(s.head_dim_v) + ", .bq = " + i(s.bq) + ", .bkv = " + i(s.bkv) + ", .consumers = " + i(s.consumers) +
         ", .turns = " + (s.turns ? "true" : "false") + (s.warps != 0 ? ", .warps = " + i(s.warps) : "") + ", .stages = " + i(s.stages) + "}";
}
// A profiler kernel's: {.config = ..., .mask = tessera::tuning::AttentionMask::k...}.
inline std::string cpp_initializer(AttentionSpec const& s) {
  constexpr char const* masks[] = {"kNone", "kCausal", "kCausalTopLeft", "kWindow"};
  return "{.config = " + cpp_initializer(s.config) + ", .mask = tessera::tuning::AttentionMask::" + masks[int(s.mask)] + "}";
}

// The candidate of the wide space (which holds the others) named `kernel_name` (null when none).
inline AttentionCandidate const* find_attention_candidate(std::string const& kernel_name) {
  static auto const space = attention_space(AttentionSpaceSize::kWide);
  return space.find_if([&](AttentionCandidate const& c) { return name(c.spec) == kernel_name; });
}

}  // namespace tessera::tuning
