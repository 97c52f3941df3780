// Random GEMM problems from a fixed seed, each checked on the device (device_verify.hpp) against
// the double reference with the types' bound: M, N and K log-uniform from 1 to 40000 (trimmed to
// at most 2^32 multiply-adds and 2^28 elements an operand), batches, padded leading dimensions,
// both orders of D, split-K, the raster group and, for the sm90 kernel, swap_ab, the L2 hints and
// per-tensor scales with amax; for an AllStages Config, a random set of its stages on random data.
// A problem depends only on (seed, Config name, index), so a failure replays alone:
//
//   TESSERA_FUZZ_SEED=<seed> TESSERA_FUZZ_ONLY=<index> tessera_device_tests "<test case>"
//
// TESSERA_FUZZ_PROBLEMS sets the problems per Config (default below); TESSERA_TEST_SMALL (the
// sanitizer runs) keeps them under 2^22 multiply-adds.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "device_verify.hpp"

namespace tessera::test {

inline std::uint64_t fuzz_seed() {
  char const* s = std::getenv("TESSERA_FUZZ_SEED");
  return s ? std::strtoull(s, nullptr, 0) : 20261125;
}

inline std::uint64_t name_hash(char const* s) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (; *s; ++s) h = (h ^ std::uint8_t(*s)) * 1099511628211ull;
  return h;
}

// The per-Config problem count: TESSERA_FUZZ_PROBLEMS, else `fallback`.
inline int fuzz_problems(int fallback) {
  char const* s = std::getenv("TESSERA_FUZZ_PROBLEMS");
  return s ? std::atoi(s) : fallback;
}

template <class Cfg>
struct Fuzz {
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  using ED = typename Cfg::ElementD;
  using Epi = typename Cfg::Epilogue;
  static constexpr bool sm90 = Cfg::warp_specialized;
  static constexpr bool all_stages = std::is_same_v<Epi, AllStages>;

  // Problem `index` of the stream (seed, name), with the epilogue's stages to switch on (a bit each).
  struct Drawn {
    DeviceCase cs;
    unsigned stages = 0;
  };
  static Drawn draw(std::uint64_t seed, char const* name, int index) {
    std::mt19937_64 rng(device_verify::mix(seed ^ name_hash(name)) + std::uint64_t(index));
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
    auto log_uniform = [&](int hi) {
      return std::max(1, int(std::lround(std::exp(std::uniform_real_distribution<double>(0, std::log(double(hi)))(rng)))));
    };
    Drawn out;
    DeviceCase& cs = out.cs;
    bool const small = std::getenv("TESSERA_TEST_SMALL") != nullptr;
    cs.m = log_uniform(40000);
    cs.n = log_uniform(40000);
    cs.k = log_uniform(40000);
    cs.batch = chance(0.8) ? 1 : uniform(2, 4);
    // Trim the largest extent until the problem fits the budgets.
    std::int64_t const macs = small ? std::int64_t(1) << 22 : std::int64_t(1) << 32, elements = std::int64_t(1) << 28;
    auto over = [&] {
      std::int64_t const m = cs.m, n = cs.n, k = cs.k, b = cs.batch;
      return m * n * k * b > macs || m * n * b > elements || m * k * b > elements || n * k * b > elements;
    };
    while (over()) {
      int& big = cs.m >= cs.n && cs.m >= cs.k ? cs.m : cs.n >= cs.k ? cs.n : cs.k;
      big = std::max(1, big / 2 + uniform(0, 7));
      if (cs.m == 1 && cs.n == 1 && cs.k == 1) break;
    }
    // Leading dimensions: tight or padded. TMA (the sm90 kernel's loads) needs rows of A and B 16
    // bytes apart; the sm80 kernel takes any, odd ones on its narrow path. D takes any (the sm90
    // kernel stores rows that are not 16-byte aligned without TMA).
    auto ld = [&](std::int64_t extent, int bytes, bool tma) {
      if (tma) {
        std::int64_t const e = 16 / bytes;
        return (extent + e - 1) / e * e + (chance(0.5) ? 0 : e * uniform(1, 4));
      }
      return extent + (chance(0.5) ? 0 : uniform(1, 40));
    };
    cs.lda = ld(Cfg::a_k_major ? cs.k : cs.m, int(sizeof(EA)), sm90);
    cs.ldb = ld(Cfg::b_k_major ? cs.k : cs.n, int(sizeof(EB)), sm90);
    cs.d_order = chance(0.75) ? gemm::StorageOrder::kRowMajor : gemm::StorageOrder::kColumnMajor;
    cs.ldd = ld(cs.d_order == gemm::StorageOrder::kRowMajor ? cs.n : cs.m, int(sizeof(ED)), false);
    if (!sm90 && chance(0.1)) cs.misalign = uniform(1, 3);
    int const k_tiles = (cs.k + Cfg::BK - 1) / Cfg::BK;
    cs.split_k = chance(0.6) ? 1 : chance(0.5) ? 0 : std::min(k_tiles, uniform(2, 8));
    cs.raster_group = chance(0.7) ? 0 : std::vector<int>{1, 2, 3, 5, 8, 16}[std::size_t(uniform(0, 5))];
    if constexpr (sm90) {
      if (Cfg::a_k_major == Cfg::b_k_major && std::is_same_v<EA, EB> && chance(0.25)) cs.swap_ab = true;
      if (chance(0.15)) {
        cs.l2_hint_a = gemm::L2Hint(uniform(0, 3));
        cs.l2_hint_b = gemm::L2Hint(uniform(0, 3));
      }
      if (chance(0.2)) {
        float const p2[] = {0.5f, 1.0f, 2.0f, 4.0f};
        cs.scales = Scales{true, p2[uniform(0, 3)], p2[uniform(0, 3)], p2[uniform(0, 3)], chance(0.5)};
      }
    }
    if constexpr (all_stages) {
      if (chance(0.5)) out.stages = unsigned(uniform(1, (1 << kAllStagesCount) - 1));
      // C and the residual are M x N floats per batch entry: only where that is small.
      if (std::int64_t(cs.m) * cs.n * cs.batch > (std::int64_t(1) << 26)) out.stages &= ~(1u | (1u << 5));
    }
    return out;
  }

  // The AllStages chain with the stages in `stages` on, their data random on the device.
  static Epi epilogue_for(Drawn const& p, std::uint64_t seed) {
    Epi e{};
    if constexpr (all_stages) {
      namespace dv = device_verify;
      DeviceCase const& cs = p.cs;
      auto data = [&](int slot, std::int64_t count) {
        auto* v = static_cast<float*>(dv::scratch(dv::kEpilogue0 + slot, std::size_t(std::max<std::int64_t>(count, 1)) * sizeof(float)));
        dv::fill(v, std::size_t(count), seed * 16 + std::uint64_t(slot), true);
        return v;
      };
      auto on = [&](int i) { return (p.stages >> i & 1u) != 0; };
      std::int64_t const mn = std::int64_t(cs.m) * cs.n;
      float *row_a = data(0, cs.m), *row_b = data(1, cs.m), *col_a = data(2, cs.n), *col_b = data(3, cs.n);
      float* c = on(0) ? data(4, mn * cs.batch) : nullptr;
      float* r = on(5) ? data(5, mn * cs.batch) : nullptr;
      e = all_stages_chain(AllStagesData{c, row_a, row_b, col_a, col_b, r, cs.n, mn}, on);
    }
    return e;
  }

  // Checks `problems` problems (or only TESSERA_FUZZ_ONLY); returns a line per failure that says
  // how to replay it.
  static std::vector<std::string> run(char const* name, int problems) {
    std::uint64_t const seed = fuzz_seed();
    char const* only = std::getenv("TESSERA_FUZZ_ONLY");
    int const first = only ? std::atoi(only) : 0, last = only ? first + 1 : problems;
    std::vector<std::string> failures;
    for (int i = first; i < last; ++i) {
      Drawn const p = draw(seed, name, i);
      // Integer D of a float result: the device's and the reference's float may round to
      // neighbouring integers (gemm_check.hpp); one unit is the most they differ.
      double const extra = std::is_integral_v<ED> && (!std::is_integral_v<EA> || p.stages != 0) ? 1.0 : 0.0;
      // AllStages' last stage rounds to half (ConvertTo<half>): where it is on, D's bound covers
      // that rounding too.
      bool const to_half = all_stages && (p.stages >> (kAllStagesCount - 1) & 1u) != 0;
      Epi const epi = epilogue_for(p, seed + std::uint64_t(i));
      DeviceResult const r = to_half ? DeviceCheck<Cfg>::template run<half_t>(p.cs, 1, epi, seed + std::uint64_t(i), extra)
                                     : DeviceCheck<Cfg>::run(p.cs, 1, epi, seed + std::uint64_t(i), extra);
      if (!r.ok())
        failures.push_back(std::string(name) + " problem " + std::to_string(i) + " (stages 0x" + hex(p.stages) + "): " + r.report() +
                           "\n  replay: TESSERA_FUZZ_SEED=" + std::to_string(seed) + " TESSERA_FUZZ_ONLY=" + std::to_string(i));
    }
    return failures;
  }

  static std::string hex(unsigned x) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%x", x);
    return buf;
  }
};

// Runs the fuzz of Cfg under `name` (its stream) and fails the test with every failure's line.
template <class Cfg>
void fuzz(char const* name, int problems) {
  auto const failures = Fuzz<Cfg>::run(name, fuzz_problems(problems));
  std::string all;
  for (auto const& f : failures) all += f + "\n";
  INFO(failures.size() << " of the problems failed:\n" << all);
  CHECK(failures.empty());
}

// The fuzz of an sm80 type's suite (gemm_check.hpp's TypeSuite): its four layouts, every
// epilogue stage on TN.
template <class Suite>
void fuzz_layouts(std::string const& type) {
  fuzz<typename Suite::template Cfg<RowMajor, ColumnMajor, AllStages>>((type + ".tn.all_stages").c_str(), 200);
  fuzz<typename Suite::template Cfg<ColumnMajor, RowMajor, epilogue::Identity>>((type + ".nt").c_str(), 100);
  fuzz<typename Suite::template Cfg<ColumnMajor, ColumnMajor, epilogue::Identity>>((type + ".nn").c_str(), 100);
  fuzz<typename Suite::template Cfg<RowMajor, RowMajor, epilogue::Identity>>((type + ".tt").c_str(), 100);
}

// The stress cases of Cfg: each run `runs` times (bit for bit against the first run, and against
// the reference).
template <class Cfg>
void stress(std::vector<DeviceCase> const& cases, int runs = 3, typename Cfg::Epilogue const& epi = {}) {
  for (auto const& cs : cases) {
    DeviceResult const r = DeviceCheck<Cfg>::run(cs, runs, epi);
    INFO(r.report());
    CHECK(r.ok());
  }
}

}  // namespace tessera::test

namespace tessera::test {

// The stress shapes: grids of thousands to tens of thousands of tiles whose blocks each take many
// tiles in turn (the persistent kernel's stages, turns and staging buffers reused over and over),
// interior tiles next to edge tiles (the last tile row and column partial), K of one and two
// k-tiles (the epilogue's share of the time at its largest, its stores back to back), very wide
// and very tall grids, D stored by TMA and by the threads (rows not 16-byte aligned, column-major
// D), split-K and batches. Issue 29's problems are the first three (and 40000 x 60000 in the
// 64-bit suite).
inline std::vector<DeviceCase> stress_cases() {
  using gemm::StorageOrder;
  std::vector<DeviceCase> c = {
      {.m = 4096, .n = 60000, .k = 64},
      {.m = 16384, .n = 30000, .k = 64},
      {.m = 20000, .n = 30000, .k = 64},
      {.m = 60000, .n = 4096, .k = 64},        // the transpose: edge tiles in the last row
      {.m = 12345, .n = 23456, .k = 65},       // two k-tiles, the second of one column; edges both ways
      {.m = 16384, .n = 40000, .k = 1},        // one partial k-tile; 20,096 tiles of 128 x 256
      {.m = 20000, .n = 30000, .k = 128},      // two whole k-tiles
      {.m = 1000000, .n = 200, .k = 64},       // a very tall grid
      {.m = 200, .n = 1000000, .k = 64},       // a very wide one
      {.m = 8192, .n = 30001, .k = 64},        // D's rows not 16-byte aligned: stored by the threads
      {.m = 16384, .n = 30000, .k = 64, .d_order = StorageOrder::kColumnMajor},
      {.m = 2048, .n = 30000, .k = 1000, .split_k = 3},  // split-K over many tiles, a K residue
      {.m = 4096, .n = 10000, .k = 64, .batch = 4},
  };
  return c;
}

// Problems with more than 2^31 elements in A, in B or in D (64-bit offsets everywhere).
inline std::vector<DeviceCase> large_cases() {
  return {{.m = 524288, .n = 128, .k = 4096}, {.m = 128, .n = 524288, .k = 4096}, {.m = 40000, .n = 60000, .k = 64}};
}

}  // namespace tessera::test
