// A warpgroup of 128 host threads for the unit tests of fragment code (tile::WgmmaAccum's row
// reductions, attention's online softmax): each thread runs the body with its own fragment and
// an xor-shuffle that meets the other threads at every call (each offers its value, all wait,
// each reads its partner's, all wait again, so no value is overwritten before it is read).
#pragma once

#include <array>
#include <barrier>
#include <thread>
#include <vector>

namespace tessera::test {

class Warpgroup {
 public:
  struct Shfl {
    Warpgroup* wg;
    int t;
    float operator()(float value, int mask) const {
      wg->masks_[t].push_back(mask);
      wg->slot_[t] = value;
      wg->sync_.arrive_and_wait();
      float const partner = wg->slot_[t ^ mask];
      wg->sync_.arrive_and_wait();
      return partner;
    }
  };

  // body(t, shfl) in each of the 128 threads.
  template <class Body>
  void run(Body const& body) {
    std::vector<std::thread> threads;
    threads.reserve(128);
    for (int t = 0; t < 128; ++t) threads.emplace_back([this, t, &body] { body(t, Shfl{this, t}); });
    for (auto& th : threads) th.join();
  }

  // The masks thread t shuffled with, in order.
  std::vector<int> const& masks(int t) const { return masks_[t]; }

 private:
  std::barrier<> sync_{128};
  std::array<float, 128> slot_{};
  std::array<std::vector<int>, 128> masks_{};
};

}  // namespace tessera::test
