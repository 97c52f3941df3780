// The GEMM configuration space the profiler explores, as plain values: candidate ConfigSpecs per
// architecture (element types, operand orders, block tiles, warps or warpgroups and their
// schedule, stages, clusters), each either valid or dropped with the reason gemm::check gives,
// and the map from a valid spec back to its gemm::Config type.
//
//   constexpr auto space = tuning::gemm_space(tuning::SpaceSize::kDefault);
//   for (int i = 0; i < space.size; ++i) if (space.items[i].valid()) ...   // what `list` prints
//   using Cfg = tuning::ConfigOf<space.items[3].spec>;                    // what a registry TU instantiates
//
// A spec is a structural value, so it is a template argument: the generated translation units
// instantiate ConfigOf<space.items[i].spec> for their share of i.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/gemm/config_of.hpp"

namespace tessera::tuning {

using gemm::ConfigError;
using gemm::ConfigSpec;
using gemm::Dtype;

using gemm::ConfigOf;

// One candidate: its spec and the first check it fails (kNone: valid). Spec and Error are an
// operation's (gemm::ConfigSpec and gemm::ConfigError here; conv's in tuning/conv_space.hpp).
template <class Spec, class Error>
struct BasicCandidate {
  Spec spec{};
  Error error = Error::kNone;
  constexpr bool valid() const { return error == Error::kNone; }
};
using Candidate = BasicCandidate<ConfigSpec, ConfigError>;

// A fixed-capacity list of candidates (constexpr-friendly), each checked by its operation's
// check(spec) (found by argument-dependent lookup: gemm::check, conv::check).
template <class C, int Capacity>
struct BasicCandidateList {
  C items[Capacity]{};
  int size = 0;
  constexpr void add(decltype(C::spec) const& s) {
    if (size < Capacity) items[size++] = C{s, check(s)};
  }
  constexpr int valid_count() const {
    int n = 0;
    for (int i = 0; i < size; ++i) n += items[i].valid() ? 1 : 0;
    return n;
  }
  // The first candidate for which pred holds (null when none does).
  template <class Pred>
  constexpr C const* find_if(Pred pred) const {
    for (int i = 0; i < size; ++i)
      if (pred(items[i])) return &items[i];
    return nullptr;
  }
};
template <int Capacity>
using CandidateList = BasicCandidateList<Candidate, Capacity>;

// kDefault: the profiler's space. kReduced: one to three per architecture and type (13), for CI
// builds of the profiler.
enum class SpaceSize { kDefault, kReduced };

inline constexpr int kSpaceCapacity = 896;

namespace detail {
struct Types {
  Dtype a, b, d, acc;
};

constexpr ConfigSpec base(int cc, Types t, bool a_k_major, bool b_k_major) {
  ConfigSpec s;
  s.arch_cc = cc;
  s.a = t.a;
  s.b = t.b;
  s.d = t.d;
  s.acc = t.acc;
  s.a_k_major = a_k_major;
  s.b_k_major = b_k_major;
  return s;
}

// sm_80: mma.sync, Warps<M, N>, 2 to 5 stages; BlockTile K of 32 (16-bit), 16 (tf32), 64 (int8).
template <int Cap>
constexpr void add_sm80(CandidateList<Cap>& out, bool reduced) {
  constexpr Types types[] = {{Dtype::kBf16, Dtype::kBf16, Dtype::kBf16, Dtype::kF32},
                             {Dtype::kF16, Dtype::kF16, Dtype::kF16, Dtype::kF32},
                             {Dtype::kF32, Dtype::kF32, Dtype::kF32, Dtype::kF32},
                             {Dtype::kInt8, Dtype::kInt8, Dtype::kInt32, Dtype::kInt32}};
  struct Shape {
    int bm, bn, wm, wn;
  };
  constexpr Shape shapes[] = {{128, 256, 2, 4}, {256, 128, 4, 2}, {128, 128, 2, 2}, {64, 128, 2, 2}, {64, 64, 2, 2}};
  for (Types const t : types) {
    int const bk = t.a == Dtype::kF32 ? 16 : t.a == Dtype::kInt8 ? 64 : 32;
    for (Shape const sh : shapes) {
      if (reduced && !(sh.bm == 128 && sh.bn == 128)) continue;
      for (int stages : {3, 4, 5}) {
        if (reduced && stages != 3) continue;
        ConfigSpec s = base(80, t, true, true);
        s.bm = sh.bm;
        s.bn = sh.bn;
        s.bk = bk;
        s.warps_m = sh.wm;
        s.warps_n = sh.wn;
        s.stages = stages;
        out.add(s);
      }
    }
  }
}

// sm_90a: wgmma + TMA, Warpgroups (cooperative 64 x 1 or 2 consumers, ping-pong), 2 x 1 clusters
// for the wide tiles; BlockTile K of one 128-byte span. 16-bit types in all four operand orders;
// fp8 K-major.
template <int Cap>
constexpr void add_sm90(CandidateList<Cap>& out, bool reduced) {
  constexpr Types types[] = {{Dtype::kBf16, Dtype::kBf16, Dtype::kBf16, Dtype::kF32},
                             {Dtype::kF16, Dtype::kF16, Dtype::kF16, Dtype::kF32},
                             {Dtype::kE4m3, Dtype::kE4m3, Dtype::kBf16, Dtype::kF32}};
  struct Shape {
    int bm, bn, consumers;
    bool ping_pong;
    int cluster_m;
  };
  constexpr Shape shapes[] = {{128, 256, 2, false, 1}, {128, 256, 2, false, 2}, {128, 128, 2, false, 1}, {128, 192, 2, false, 1},
                              {128, 128, 2, true, 1},  {64, 256, 2, true, 1},   {64, 256, 2, true, 2},   {64, 128, 1, false, 1},
                              {64, 64, 1, false, 1},   {64, 32, 1, false, 1},   {128, 256, 2, true, 1},
                              {128, 32, 2, false, 1},   // for decode shapes with swap_ab
                              {64, 112, 1, false, 1},  {128, 112, 2, false, 1}};  // N = 14336 in 128 tiles: one wave
  constexpr bool orders[4][2] = {{true, true}, {false, false}, {false, true}, {true, false}};  // tn, nt, nn, tt
  for (Types const t : types) {
    int const bk = 128 / gemm::dtype_bytes(t.a);
    for (auto const& o : orders) {
      if (gemm::is_fp8(t.a) && !(o[0] && o[1])) continue;
      if (reduced && !(o[0] && o[1])) continue;
      for (Shape const sh : shapes) {
        // reduced: the three kernels' shapes: cooperative 128 x 256, one consumer, ping-pong
        if (reduced && !((sh.bm == 128 && sh.bn == 256 && !sh.ping_pong && sh.cluster_m == 1) || (sh.bm == 64 && sh.bn == 128) ||
                         (sh.bm == 128 && sh.bn == 128 && sh.ping_pong)))
          continue;
        for (int stages : {4, 5, 8, 12, 16}) {  // the deep ones for the narrow (decode) tiles
          if (reduced && stages != 4) continue;
          ConfigSpec s = base(90, t, o[0], o[1]);
          s.bm = sh.bm;
          s.bn = sh.bn;
          s.bk = bk;
          s.consumers = sh.consumers;
          s.ping_pong = sh.ping_pong;
          s.cluster_m = sh.cluster_m;
          s.stages = stages;
          out.add(s);
        }
      }
    }
  }
}

// AMD gfx90a / gfx940 (the gfx9 kernel, built with hipcc: listed with its validity, not built into
// the CUDA profiler): Warps<M, N> wavefronts of 32 x 32 MFMA atoms, two LDS buffers, BlockTile K of
// 64 bytes and, for 16-bit types, 128 (too much LDS for the 256 x 256 tile: listed as dropped).
// f16 in all four operand orders, bf16 TN and NT; f32, int8 and (gfx940) FNUZ fp8 K-major.
template <int Cap>
constexpr void add_gfx9(CandidateList<Cap>& out, bool reduced) {
  constexpr Types types[] = {{Dtype::kBf16, Dtype::kBf16, Dtype::kBf16, Dtype::kF32},
                             {Dtype::kF16, Dtype::kF16, Dtype::kF16, Dtype::kF32},
                             {Dtype::kF32, Dtype::kF32, Dtype::kF32, Dtype::kF32},
                             {Dtype::kInt8, Dtype::kInt8, Dtype::kInt32, Dtype::kInt32},
                             {Dtype::kE4m3Fnuz, Dtype::kE4m3Fnuz, Dtype::kF16, Dtype::kF32}};
  struct Shape {
    int bm, bn, wm, wn;
  };
  constexpr Shape shapes[] = {{128, 128, 2, 2}, {256, 128, 4, 2}, {128, 256, 2, 4}, {64, 64, 2, 2}, {256, 256, 4, 4}};
  constexpr bool orders[4][2] = {{true, true}, {false, false}, {false, true}, {true, false}};  // tn, nt, nn, tt
  for (int gfx : {0x90a, 0x940}) {
    for (Types const t : types) {
      if (t.a == Dtype::kE4m3Fnuz && gfx != 0x940) continue;
      for (auto const& o : orders) {
        bool const tn = o[0] && o[1], nt = !o[0] && !o[1];
        if (!tn && (reduced || t.a != Dtype::kF16) && !(nt && t.a == Dtype::kBf16 && !reduced)) continue;
        for (Shape const sh : shapes) {
          if (reduced && !(sh.bm == 128 && sh.bn == 128)) continue;
          for (int row_bytes : {64, 128}) {
            if (row_bytes == 128 && (reduced || gemm::dtype_bytes(t.a) != 2)) continue;
            ConfigSpec s = base(0, t, o[0], o[1]);
            s.gfx = gfx;
            s.bm = sh.bm;
            s.bn = sh.bn;
            s.bk = row_bytes / gemm::dtype_bytes(t.a);
            s.warps_m = sh.wm;
            s.warps_n = sh.wn;
            s.stages = 2;
            out.add(s);
          }
        }
      }
    }
  }
}
}  // namespace detail

// Every candidate of every architecture, valid or not.
constexpr CandidateList<kSpaceCapacity> gemm_space(SpaceSize size) {
  CandidateList<kSpaceCapacity> out;
  detail::add_sm80(out, size == SpaceSize::kReduced);
  detail::add_sm90(out, size == SpaceSize::kReduced);
  detail::add_gfx9(out, size == SpaceSize::kReduced);
  return out;
}

// "sm90_bf16_tn_128x256x64_2wg_coop_s4" (+ "_c2x1" for clusters; "4x2w" for Warps<4, 2>);
// "gfx90a_f16_tn_128x128x32_2x2w_s2" on AMD. (Built by appending: GCC 12's -Wrestrict misfires on
// chains of std::string operator+.)
inline std::string name(ConfigSpec const& s) {
  auto const i = [](int v) { return std::to_string(v); };
  // float operands are multiplied as tf32 on NVIDIA, in full precision by the MFMA f32 form on AMD
  auto const in = [&s](Dtype t) { return std::string(t == Dtype::kF32 && !s.amd() ? "tf32" : gemm::dtype_name(t)); };
  std::string n = s.amd() ? (s.gfx == 0x940 ? "gfx940" : "gfx90a") : "sm" + i(s.arch_cc);
  n.append("_").append(in(s.a));
  if (s.b != s.a) n.append("x").append(in(s.b));
  if (s.d != s.a) n.append("_to_").append(gemm::dtype_name(s.d));  // (f32 D of tf32 operands is implied)
  n.append("_").append(s.a_k_major ? "t" : "n").append(s.b_k_major ? "n" : "t");
  n.append("_").append(i(s.bm)).append("x").append(i(s.bn)).append("x").append(i(s.bk));
  if (s.warp_specialized())
    n.append("_").append(i(s.consumers)).append("wg_").append(s.ping_pong ? "pingpong" : "coop");
  else
    n.append("_").append(i(s.warps_m)).append("x").append(i(s.warps_n)).append("w");
  n.append("_s").append(i(s.stages));
  if (s.cluster_m * s.cluster_n > 1) n.append("_c").append(i(s.cluster_m)).append("x").append(i(s.cluster_n));
  return n;
}

// The spec as C++ source: a designated initializer of tessera::gemm::ConfigSpec (what the
// profiler's generated translation units and the header `tessera-profile emit` writes contain).
inline std::string cpp_initializer(ConfigSpec const& s) {
  auto const dtype = [](Dtype t) {
    constexpr char const* names[] = {"kUnknown", "kBf16", "kF16", "kF32", "kInt8", "kInt32", "kE4m3", "kE5m2", "kE4m3Fnuz", "kE5m2Fnuz"};
    return std::string("tessera::gemm::Dtype::") + names[int(t)];
  };
  auto const b = [](bool v) { return std::string(v ? "true" : "false"); };
  auto const i = [](int v) { return std::to_string(v); };
  std::string const gfx = s.amd() ? ", .gfx = " + i(s.gfx) : "";
  return "{.arch_cc = " + i(s.arch_cc) + gfx + ", .layouts_known = " + b(s.layouts_known) + ", .a_k_major = " + b(s.a_k_major) +
         ", .b_k_major = " + b(s.b_k_major) + ", .a = " + dtype(s.a) + ", .b = " + dtype(s.b) + ", .d = " + dtype(s.d) +
         ", .acc = " + dtype(s.acc) + ", .bm = " + i(s.bm) + ", .bn = " + i(s.bn) + ", .bk = " + i(s.bk) + ", .warps_m = " +
         i(s.warps_m) + ", .warps_n = " + i(s.warps_n) + ", .consumers = " + i(s.consumers) + ", .ping_pong = " + b(s.ping_pong) +
         ", .cluster_m = " + i(s.cluster_m) + ", .cluster_n = " + i(s.cluster_n) + ", .stages = " + i(s.stages) + "}";
}

// The candidate of the default space named `config_name` (null when there is none).
inline Candidate const* find_candidate(std::string const& config_name) {
  static auto const space = gemm_space(SpaceSize::kDefault);
  return space.find_if([&](Candidate const& c) { return name(c.spec) == config_name; });
}

}  // namespace tessera::tuning
