// Named barriers as a handoff between warps: one warp writes a round of shared memory and arrives
// on a barrier (bar.arrive, no wait), the other waits on it (bar.sync) and reads the round, then
// hands the buffer back the same way on a second barrier. Many rounds, every value checked: the
// arrival orders the writer's shared-memory writes before the reader's reads.
#include <catch2/catch.hpp>

#include "../support/device_check.hpp"
#include "tessera/arch/sm90/warpgroup.hpp"

using namespace tessera;
using tessera::test::DeviceBuffer;

namespace {

// out[lane]: mismatches the reader lane saw; out[32 + lane]: rounds it read.
__global__ void handoff(int* out, int rounds) {
  __shared__ int buf[32];
  int const warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  constexpr int kFull = 1, kEmpty = 2;
  if (warp == 0) {
    for (int r = 0; r < rounds; ++r) {
      if (r > 0) arch::sm90::named_barrier_sync(kEmpty, 64);  // the reader is done with the last round
      buf[lane] = r * 1000 + lane;
      arch::sm90::named_barrier_arrive(kFull, 64);
    }
  } else {
    int bad = 0, seen = 0;
    for (int r = 0; r < rounds; ++r) {
      arch::sm90::named_barrier_sync(kFull, 64);
      bad += buf[(lane + r) % 32] != r * 1000 + (lane + r) % 32;  // another lane's value: the whole warp's writes
      ++seen;
      if (r + 1 < rounds) arch::sm90::named_barrier_arrive(kEmpty, 64);
    }
    out[lane] = bad;
    out[32 + lane] = seen;
  }
}

}  // namespace

TEST_CASE("named barriers hand a buffer between warps: bar.arrive signals, bar.sync waits", "[gpu][pipeline][named_barrier]") {
  tessera::test::require_gpu();
  DeviceBuffer<int> out(64);
  handoff<<<1, 64>>>(out.get(), 1000);
  TESSERA_CUDA_REQUIRE_LAUNCH();
  auto const got = out.to_host();
  for (int lane = 0; lane < 32; ++lane) {
    CHECK(got[std::size_t(lane)] == 0);
    CHECK(got[std::size_t(32 + lane)] == 1000);
  }
}
