// mbarriers on the device: a producer warp and a consumer warp hand a ring of shared-memory stages
// back and forth through full/empty barriers waited on by phase parity, and cp.async arrivals
// (.noinc) make one thread's copies visible to the others without a block barrier.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "../support/device_check.hpp"
#include "tessera/arch/sm80/cp_async.hpp"
#include "tessera/arch/sm80/ldmatrix.hpp"
#include "tessera/arch/sm80/mbarrier.hpp"

using namespace tessera;
using tessera::test::DeviceBuffer;

namespace {

constexpr int kStages = 3;

// Warp 0 writes round r into stage r % kStages once the consumer has released that stage's previous
// round; warp 1 waits for each round, checks it and releases the stage. out[lane]: mismatches seen
// by the consumer lane; out[32 + lane]: rounds it checked.
__global__ void ring(int* out, int rounds) {
  __shared__ int buf[kStages][32];
  __shared__ alignas(8) std::uint64_t full[kStages], empty[kStages];
  int const warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      arch::mbarrier_init(arch::smem_address(&full[s]), 32);
      arch::mbarrier_init(arch::smem_address(&empty[s]), 32);
    }
  }
  __syncthreads();
  if (warp == 0) {
    for (int r = 0; r < rounds; ++r) {
      int const s = r % kStages;
      std::uint32_t const phase = (r / kStages) & 1;
      if (r >= kStages) arch::mbarrier_wait_parity(arch::smem_address(&empty[s]), phase ^ 1);
      buf[s][lane] = r * 1000 + lane;
      arch::mbarrier_arrive(arch::smem_address(&full[s]));
    }
  } else {
    int bad = 0, seen = 0;
    for (int r = 0; r < rounds; ++r) {
      int const s = r % kStages;
      arch::mbarrier_wait_parity(arch::smem_address(&full[s]), (r / kStages) & 1);
      // Read a neighbour's value too: the barrier orders every producer lane's write.
      bad += buf[s][lane] != r * 1000 + lane;
      bad += buf[s][(lane + 7) % 32] != r * 1000 + (lane + 7) % 32;
      ++seen;
      arch::mbarrier_arrive(arch::smem_address(&empty[s]));
    }
    out[lane] = bad;
    out[32 + lane] = seen;
  }
}

// Each thread copies one 16-byte vector with cp.async and arrives (.noinc) on one barrier; after
// the phase completes, each thread reads a vector another thread copied.
__global__ void cp_async_arrive(int4 const* src, int* out) {
  __shared__ int4 tile[128];
  __shared__ alignas(8) std::uint64_t bar;
  int const t = threadIdx.x;
  if (t == 0) arch::mbarrier_init(arch::smem_address(&bar), blockDim.x);
  __syncthreads();
  arch::cp_async_zfill<16>(arch::smem_address(&tile[t]), src + t, 16);
  arch::cp_async_mbarrier_arrive_noinc(arch::smem_address(&bar));
  arch::mbarrier_wait_parity(arch::smem_address(&bar), 0);
  int const other = (t + 37) % 128;
  int4 const v = tile[other], w = src[other];
  out[t] = (v.x != w.x) + (v.y != w.y) + (v.z != w.z) + (v.w != w.w);
}

}  // namespace

TEST_CASE("mbarrier: a producer and a consumer warp pass a ring of stages by phase parity", "[gpu][arch][mbarrier]") {
  tessera::test::require_gpu();
  int const rounds = 1000;  // every stage is reused many times: both parities, many phases
  DeviceBuffer<int> out(64);
  ring<<<1, 64>>>(out.get(), rounds);
  TESSERA_CUDA_REQUIRE_LAUNCH();
  auto const h = out.to_host();
  for (int lane = 0; lane < 32; ++lane) {
    INFO("consumer lane " << lane);
    REQUIRE(h[std::size_t(lane)] == 0);
    REQUIRE(h[std::size_t(32 + lane)] == rounds);
  }
}

TEST_CASE("mbarrier: cp.async arrivals (.noinc) complete a phase when every thread's copies land", "[gpu][arch][mbarrier]") {
  tessera::test::require_gpu();
  std::vector<int> host(128 * 4);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = int(i * 2654435761u % 100003u) + 1;
  DeviceBuffer<int> src(host);
  DeviceBuffer<int> out(128);
  cp_async_arrive<<<1, 128>>>(reinterpret_cast<int4 const*>(src.get()), out.get());
  TESSERA_CUDA_REQUIRE_LAUNCH();
  for (int x : out.to_host()) REQUIRE(x == 0);
}
