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
#pragma once

#include <map>
#include <set>
#include <span>
#include <stdexcept>

namespace tessera::tile {

struct SmemAccessCost {
  int wavefronts = 0;  // what the access costs
  int ideal = 0;       // what it would cost without conflicts: one per phase with an active thread
  int conflicts() const { return wavefronts - ideal; }
};

inline SmemAccessCost smem_wavefronts(std::span<long long const> byte_addresses, int bytes_per_thread) {
  if (bytes_per_thread != 4 && bytes_per_thread != 8 && bytes_per_thread != 16)
    throw std::invalid_argument("smem_wavefronts: accesses are 4, 8 or 16 bytes per thread");
  int const per_phase = 128 / bytes_per_thread;
  SmemAccessCost cost;
  for (std::size_t begin = 0; begin < byte_addresses.size(); begin += per_phase) {
    std::map<int, std::set<long long>> words_in_bank;
    for (std::size_t t = begin; t < begin + per_phase && t < byte_addresses.size(); ++t) {
      long long const a = byte_addresses[t];
      if (a < 0) continue;
      if (a % bytes_per_thread != 0) throw std::invalid_argument("smem_wavefronts: an access is not aligned to its size");
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

}  // namespace tessera::tile
