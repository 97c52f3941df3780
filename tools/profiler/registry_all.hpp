// The configurations compiled into this profiler (generated registry_all.cpp).
#pragma once

#include "tessera/tuning/gemm_registry.hpp"

namespace tessera::profiler {

void register_all(tuning::GemmRegistry& registry);
char const* registry_space();   // TESSERA_PROFILER_SPACE: "default" or "reduced"
char const* registry_filter();  // TESSERA_PROFILER_KERNELS: the name filter ("" for none)
int registry_sm90_left_out();    // sm90 configurations left out: no 90a in CMAKE_CUDA_ARCHITECTURES

}  // namespace tessera::profiler
