// 04_tuned_gemm: GEMMs dispatched from the profiler's winners.
//
// tuned_h100.hpp was written by `tessera-profile emit` from an exhaustive profile of bf16 TN
// problems on an H100 (docs/profiler.md shows the session). gemm::Tuned<table> instantiates each
// entry's Config and runs a problem with the entry nearest to it. This program runs every problem
// of the table through Tuned, checks a sample of D against the host, and times it as the profiler
// does (warm-up, then the median of 50 runs with the L2 cache flushed before each), next to the
// time the profiler measured: the two should agree within run-to-run noise.
// Build: see README.md (the examples build with the default preset); run: ./04_tuned_gemm
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../common/example_util.hpp"
#include "tessera/gemm/tuned.hpp"
#include "tuned_h100.hpp"

using namespace tessera;
using Tuned = gemm::Tuned<tuned_h100::bf16_tn>;

namespace {

// The median of `runs` timed runs, each after a write of 2 x the L2 cache's size.
template <class Run>
float median_us(Run&& run, void* flush, std::size_t flush_bytes, int runs = 50) {
  cudaEvent_t start, stop;
  EXAMPLE_CUDA(cudaEventCreate(&start));
  EXAMPLE_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < 5; ++i) run();
  std::vector<float> ms;
  for (int i = 0; i < runs; ++i) {
    EXAMPLE_CUDA(cudaMemsetAsync(flush, i & 0xFF, flush_bytes));
    EXAMPLE_CUDA(cudaEventRecord(start));
    run();
    EXAMPLE_CUDA(cudaEventRecord(stop));
    EXAMPLE_CUDA(cudaEventSynchronize(stop));
    float t = 0;
    EXAMPLE_CUDA(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  std::nth_element(ms.begin(), ms.begin() + runs / 2, ms.end());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms[std::size_t(runs / 2)] * 1000.0f;
}

}  // namespace

int main() {
  if (!example::have_gpu()) return 0;
  int device = 0, l2 = 0, major = 0;
  EXAMPLE_CUDA(cudaGetDevice(&device));
  EXAMPLE_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major != 9) {
    std::printf("04_tuned_gemm: the table was profiled on an H100 and holds sm90 configurations; this GPU is "
                "compute capability %d.x: profile it (tools/run.sh) and emit its own table\n", major);
    return 0;
  }
  EXAMPLE_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  std::size_t const flush_bytes = std::size_t(l2) * 2;
  void* flush = nullptr;
  EXAMPLE_CUDA(cudaMalloc(&flush, flush_bytes));

  int failures = 0;
  std::printf("%-22s %-44s %12s %12s %7s\n", "problem", "entry", "Tuned (us)", "profiled", "ratio");
  for (auto const& e : tuned_h100::bf16_tn.entries) {
    auto const a = example::random_bf16(std::size_t(e.m) * e.k, 1);
    auto const b = example::random_bf16(std::size_t(e.n) * e.k, 2);
    bfloat16_t* d_a = example::to_device(a);
    bfloat16_t* d_b = example::to_device(b);
    bfloat16_t* d_d = nullptr;
    EXAMPLE_CUDA(cudaMalloc(&d_d, sizeof(bfloat16_t) * std::size_t(e.m) * e.n));
    Tuned::Arguments args;
    args.m = e.m;
    args.n = e.n;
    args.k = e.k;
    args.a = d_a;
    args.lda = e.k;
    args.b = d_b;
    args.ldb = e.k;
    args.d = d_d;
    args.ldd = e.n;
    args.split_k = 0;  // the GEMM's choice, as profiled
    std::size_t const bytes = Tuned::workspace_size(args);
    void* workspace = nullptr;
    if (bytes > 0) EXAMPLE_CUDA(cudaMalloc(&workspace, bytes));
    if (Status s = Tuned::run(args, workspace); !s) {
      std::printf("%dx%dx%d: %s\n", e.m, e.n, e.k, s.message().c_str());
      return 1;
    }
    // 16 rows spread over M, every column, against the host.
    auto const all = example::to_host(d_d, std::size_t(e.m) * e.n);
    int const rows = std::min(e.m, 16);
    std::vector<bfloat16_t> got;
    for (int r = 0; r < rows; ++r) {
      int const i = int(std::int64_t(r) * e.m / rows);
      got.insert(got.end(), all.begin() + std::size_t(i) * e.n, all.begin() + std::size_t(i + 1) * e.n);
    }
    failures += example::compare("Tuned (16 rows)", got, rows, e.n,
                                 [&](int r, int j) { return example::dot(a, b, e.k, int(std::int64_t(r) * e.m / rows), j); });
    // Timed as the profiler times: the counters of split-K stay zero from run to run.
    args.workspace_zeroed = true;
    float const us = median_us([&] { (void)Tuned::run(args, workspace); }, flush, flush_bytes);
    int const entry = Tuned::select(args);
    char problem[32], name[64];
    std::snprintf(problem, sizeof problem, "%d x %d x %d", e.m, e.n, e.k);
    std::snprintf(name, sizeof name, "entry %d%s", entry, tuned_h100::bf16_tn.entries[entry].swap_ab ? " (swap_ab)" : "");
    std::printf("%-22s %-44s %12.2f %12.2f %7.3f\n", problem, name, us, e.profiled_us, us / e.profiled_us);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_d);
    cudaFree(workspace);
  }
  cudaFree(flush);
  return failures == 0 ? 0 : 1;
}
