// A host model of shared-memory bank conflicts, for tests of access patterns.
//
// Shared memory has 32 banks of 4 bytes. A warp's request is split into phases: 32 threads per
// phase for 4-byte accesses, 16 for 8-byte, 8 for 16-byte (ldmatrix reads one 8x8 matrix, eight
// 16-byte rows, per phase). Within a phase, distinct 4-byte words in the same bank are served one
// after another (the same word is broadcast). A phase costs as many wavefronts as its busiest bank
// has distinct words; the ideal is one per phase.
//
//   auto r = smem_wavefronts(addresses_in_bytes, 16);   // one address per thread, -1 = inactive
//   REQUIRE(r.conflicts() == 0);
//
// AMD's LDS (gfx9, CDNA) has 32 banks of 4 bytes too and serves 128 bytes per cycle: a
// wavefront's 64 lanes go in phases of 128 / width lanes (8 lanes for ds_write_b128 and
// ds_read_b128, 16 for b64, 32 for b32), within which the same rule holds. The phases are
// consecutive lanes, except ds_read_b128 on CDNA3 (gfx94x), whose eight phases pair quarter
// groups: lanes 0-3 with 20-23, 4-7 with 16-19, 8-11 with 28-31, 12-15 with 24-27, and the same
// for the upper 32 lanes (AMD's composable_kernel documentation, "LDS bank conflicts").
//
//   auto r = lds_cycles(addresses_in_bytes, 16, LdsPhases::kCdna3Read128);   // 64 lanes
// Host code for tests (hipcc 5.2's clang 15 crashes compiling it in HIP mode: it is not needed there).
// tessera-header: no-hip
#pragma once

#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <vector>

namespace tessera::tile {

struct SmemAccessCost {
  int wavefronts = 0;  // what the access costs
  int ideal = 0;       // what it would cost without conflicts: one per phase with an active thread
  int conflicts() const { return wavefronts - ideal; }
};

namespace detail {
// The cost of one access whose threads are served in the given phases (lists of thread indices).
inline SmemAccessCost bank_cost(std::span<long long const> byte_addresses, int bytes_per_thread,
                                std::vector<std::vector<int>> const& phases) {
  if (bytes_per_thread != 4 && bytes_per_thread != 8 && bytes_per_thread != 16)
    throw std::invalid_argument("bank model: accesses are 4, 8 or 16 bytes per thread");
  SmemAccessCost cost;
  for (auto const& phase : phases) {
    std::map<int, std::set<long long>> words_in_bank;
    for (int t : phase) {
      if (t >= int(byte_addresses.size())) continue;
      long long const a = byte_addresses[std::size_t(t)];
      if (a < 0) continue;
      if (a % bytes_per_thread != 0) throw std::invalid_argument("bank model: an access is not aligned to its size");
      for (int w = 0; w < bytes_per_thread / 4; ++w) {
        long long const word = a / 4 + w;
        words_in_bank[int(word % 32)].insert(word);
      }
    }
    if (words_in_bank.empty()) continue;
    std::size_t busiest = 0;
    for (auto const& [bank, words] : words_in_bank) busiest = words.size() > busiest ? words.size() : busiest;
    cost.wavefronts += int(busiest);
    cost.ideal += 1;
  }
  return cost;
}
// Consecutive threads, 128 bytes' worth per phase.
inline std::vector<std::vector<int>> consecutive_phases(int threads, int bytes_per_thread) {
  int const per_phase = 128 / bytes_per_thread;
  std::vector<std::vector<int>> phases;
  for (int begin = 0; begin < threads; begin += per_phase) {
    phases.emplace_back();
    for (int t = begin; t < begin + per_phase && t < threads; ++t) phases.back().push_back(t);
  }
  return phases;
}
}  // namespace detail

inline SmemAccessCost smem_wavefronts(std::span<long long const> byte_addresses, int bytes_per_thread) {
  if (bytes_per_thread != 4 && bytes_per_thread != 8 && bytes_per_thread != 16)
    throw std::invalid_argument("smem_wavefronts: accesses are 4, 8 or 16 bytes per thread");
  return detail::bank_cost(byte_addresses, bytes_per_thread,
                           detail::consecutive_phases(int(byte_addresses.size()), bytes_per_thread));
}

// How a wavefront's LDS access is split into phases (see the top of the file).
enum class LdsPhases {
  kConsecutive,   // 128 / width consecutive lanes: writes, and reads other than CDNA3's b128
  kCdna3Read128,  // ds_read_b128 on gfx94x: quarter groups paired as listed above
};

// The cycles a 64-lane wavefront's LDS access takes (one address per lane, -1 = inactive): a
// phase costs as many cycles as its busiest bank has distinct words; the ideal is one per phase.
inline SmemAccessCost lds_cycles(std::span<long long const> byte_addresses, int bytes_per_lane, LdsPhases phases) {
  if (byte_addresses.size() != 64) throw std::invalid_argument("lds_cycles: one address per lane of a 64-lane wavefront");
  if (phases == LdsPhases::kConsecutive || bytes_per_lane != 16)
    return detail::bank_cost(byte_addresses, bytes_per_lane, detail::consecutive_phases(64, bytes_per_lane));
  std::vector<std::vector<int>> groups;
  constexpr int pairs[4][2] = {{0, 20}, {4, 16}, {8, 28}, {12, 24}};  // first lanes of the paired quarters
  for (int half : {0, 32})
    for (auto const& p : pairs) {
      groups.emplace_back();
      for (int first : p)
        for (int l = 0; l < 4; ++l) groups.back().push_back(half + first + l);
    }
  return detail::bank_cost(byte_addresses, bytes_per_lane, groups);
}

}  // namespace tessera::tile
