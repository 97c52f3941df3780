// A check that work is capturable into a CUDA graph: `run(stream)` (which enqueues on the stream
// and REQUIREs its Statuses) is captured before it ever ran eagerly -- so one-time set-up happens
// during the capture -- then run eagerly, and the graph replayed twice over poisoned outputs, each
// replay bit for bit the eager results.
#pragma once

#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <tuple>
#include <vector>

#include "device_check.hpp"

namespace tessera::test {

template <class Run, class... T>
void check_graph_replay(Run&& run, DeviceBuffer<T>&... outputs) {
  cudaStream_t stream;
  TESSERA_CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  TESSERA_CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  run(stream);
  TESSERA_CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  TESSERA_CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));

  run(stream);  // eagerly
  TESSERA_CUDA_REQUIRE(cudaStreamSynchronize(stream));
  auto const want = std::make_tuple(outputs.to_host()...);
  for (int replay = 0; replay < 2; ++replay) {
    INFO("replay " << replay);
    (outputs.poison(), ...);
    TESSERA_CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    TESSERA_CUDA_REQUIRE(cudaStreamSynchronize(stream));
    int index = 0;
    std::apply(
        [&](auto const&... expected) {
          auto same = [&](auto const& buffer, auto const& e) {
            auto const got = buffer.to_host();
            INFO("output " << index++);
            CHECK(std::memcmp(got.data(), e.data(), got.size() * sizeof(got[0])) == 0);
          };
          (same(outputs, expected), ...);
        },
        want);
  }
  TESSERA_CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  TESSERA_CUDA_REQUIRE(cudaGraphDestroy(graph));
  TESSERA_CUDA_REQUIRE(cudaStreamDestroy(stream));
}

}  // namespace tessera::test
