// The convolution configuration space the profiler explores, as plain values: candidate
// conv::ConfigSpecs per architecture, direction and element type, each either valid or dropped
// with the reason conv::check gives (the GEMM's gemm::Config message where the direction's GEMM
// fails), as tuning/gemm_space.hpp holds the GEMM's.
//
//   constexpr auto space = tuning::conv_space(tuning::ConvSpaceSize::kDefault);
//   for (int i = 0; i < space.size; ++i) if (space.items[i].valid()) ...   // what `list conv` prints
//   using Cfg = conv::ConfigOf<space.items[3].spec>;                      // what a registry TU instantiates
//
// Three sizes, each part of the next: kReduced (CI and the gpu preset: one Config per direction
// and architecture, bf16), kDefault (the bench's tiles, bf16 and f16) and kWide (a sweep of tiles
// and stages, opt-in: TESSERA_PROFILER_CONV_SPACE=wide). Each valid candidate is one translation
// unit of the profiler (about 4 s of nvcc each for sm_90a).
#pragma once

#include <string>

#include "tessera/conv/config_check.hpp"
#include "tessera/tuning/gemm_space.hpp"

namespace tessera::tuning {

using ConvCandidate = BasicCandidate<conv::ConfigSpec, conv::ConfigError>;
template <int Capacity>
using ConvCandidateList = BasicCandidateList<ConvCandidate, Capacity>;

enum class ConvSpaceSize { kReduced, kDefault, kWide };

constexpr char const* conv_space_name(ConvSpaceSize s) {
  return s == ConvSpaceSize::kReduced ? "reduced" : s == ConvSpaceSize::kDefault ? "default" : "wide";
}

inline constexpr int kConvSpaceCapacity = 320;

namespace detail {
struct ConvTile {
  int bm, bn, warps_m, warps_n, consumers, stages;
};

constexpr conv::ConfigSpec conv_spec(int cc, conv::Direction d, Dtype t, int bk, ConvTile const& tile) {
  conv::ConfigSpec s = conv::spec_of(cc, d, t);
  s.gemm.bm = tile.bm;
  s.gemm.bn = tile.bn;
  s.gemm.bk = bk;
  s.gemm.warps_m = tile.warps_m;
  s.gemm.warps_n = tile.warps_n;
  s.gemm.consumers = tile.consumers;
  s.gemm.stages = tile.stages;
  return s;
}

// The bench's Configs (bench/conv/bench_conv.cu): sm_90a Fprop and Dgrad 128 x {64, 128, 256}
// with 8, 6 and 4 stages (the N tile picked by K, resp. C: 64, 128, more); Wgrad 64 x 256 (one
// consumer) and 128 x 256; the sm80 kernel 128 x 128 x 32 on 2 x 2 warps with 4 stages, which
// takes what the Hopper kernel refuses (C / groups not a multiple of 64, strided Dgrad, C < 8).
template <int Cap>
constexpr void add_conv_default(ConvCandidateList<Cap>& out, bool reduced) {
  constexpr conv::Direction directions[] = {conv::Direction::kFprop, conv::Direction::kDgrad, conv::Direction::kWgrad};
  for (Dtype t : {Dtype::kBf16, Dtype::kF16}) {
    if (reduced && t != Dtype::kBf16) continue;
    for (conv::Direction d : directions) {
      if (d == conv::Direction::kWgrad) {
        if (!reduced) out.add(conv_spec(90, d, t, 64, {64, 256, 0, 0, 1, 4}));
        out.add(conv_spec(90, d, t, 64, {128, 256, 0, 0, 2, 4}));
      } else {
        if (!reduced) out.add(conv_spec(90, d, t, 64, {128, 64, 0, 0, 2, 8}));
        out.add(conv_spec(90, d, t, 64, {128, 128, 0, 0, 2, 6}));
        if (!reduced) out.add(conv_spec(90, d, t, 64, {128, 256, 0, 0, 2, 4}));
      }
      out.add(conv_spec(80, d, t, 32, {128, 128, 2, 2, 0, 4}));
    }
  }
}

// The wide sweep's other candidates: sm_90a tiles of one or two consumers and 4 to 8 stages
// (128 x 256 past 4 stages is over the shared memory: dropped with gemm::Config's message), sm80
// tiles of 4 to 8 warps and 3 to 5 stages; every direction, bf16 and f16.
template <int Cap>
constexpr void add_conv_wide(ConvCandidateList<Cap>& out) {
  constexpr ConvTile sm90[] = {{128, 64, 0, 0, 2, 0}, {128, 128, 0, 0, 2, 0}, {128, 192, 0, 0, 2, 0}, {128, 256, 0, 0, 2, 0},
                               {64, 64, 0, 0, 1, 0},  {64, 128, 0, 0, 1, 0},  {64, 256, 0, 0, 1, 0}};
  constexpr ConvTile sm80[] = {{128, 128, 2, 2, 0, 0}, {128, 256, 2, 4, 0, 0}, {256, 128, 4, 2, 0, 0},
                               {128, 64, 2, 2, 0, 0},  {64, 128, 2, 2, 0, 0},  {64, 64, 2, 2, 0, 0}};
  for (Dtype t : {Dtype::kBf16, Dtype::kF16})
    for (conv::Direction d : {conv::Direction::kFprop, conv::Direction::kDgrad, conv::Direction::kWgrad}) {
      for (ConvTile tile : sm90)
        for (int stages : {4, 5, 6, 8}) {
          tile.stages = stages;
          out.add(conv_spec(90, d, t, 64, tile));
        }
      for (ConvTile tile : sm80)
        for (int stages : {3, 4, 5}) {
          tile.stages = stages;
          out.add(conv_spec(80, d, t, 32, tile));
        }
    }
}

}  // namespace detail

// Every candidate of the space of this size, valid or not (the wide space's first the default
// one's, in the same order; no candidate twice).
constexpr ConvCandidateList<kConvSpaceCapacity> conv_space(ConvSpaceSize size) {
  ConvCandidateList<kConvSpaceCapacity> out;
  detail::add_conv_default(out, size == ConvSpaceSize::kReduced);
  if (size == ConvSpaceSize::kWide) {
    ConvCandidateList<kConvSpaceCapacity> wide;
    detail::add_conv_wide(wide);
    for (int i = 0; i < wide.size; ++i)
      if (!out.find_if([&](ConvCandidate const& c) { return c.spec == wide.items[i].spec; })) out.add(wide.items[i].spec);
  }
  return out;
}

// "sm90_bf16_fprop_128x128x64_2wg_coop_s6", "sm80_f16_wgrad_128x128x32_2x2w_s4": the GEMM's name
// (tuning::name) with the direction in place of the operand orders.
inline std::string name(conv::ConfigSpec const& s) {
  std::string n = name(s.gemm);
  std::string const orders = std::string("_") + (s.gemm.a_k_major ? "t" : "n") + (s.gemm.b_k_major ? "n" : "t") + "_";
  std::size_t const at = n.find(orders);
  if (at != std::string::npos) n.replace(at, orders.size(), std::string("_") + conv::direction_name(s.direction) + "_");
  return n;
}

// The spec as C++ source: a designated initializer of tessera::conv::ConfigSpec.
inline std::string cpp_initializer(conv::ConfigSpec const& s) {
  constexpr char const* directions[] = {"kFprop", "kDgrad", "kWgrad"};
  return std::string("{.direction = tessera::conv::Direction::") + directions[int(s.direction)] + ", .gemm = " + cpp_initializer(s.gemm) +
         "}";
}

// The candidate of the wide space (which holds the others) named `config_name` (null when none).
inline ConvCandidate const* find_conv_candidate(std::string const& config_name) {
  static auto const space = conv_space(ConvSpaceSize::kWide);
  return space.find_if([&](ConvCandidate const& c) { return name(c.spec) == config_name; });
}

}  // namespace tessera::tuning
