// The configurations compiled into this profiler (generated registry_all.cpp).
#pragma once

#include "tessera/tuning/attention_registry.hpp"
#include "tessera/tuning/conv_registry.hpp"
#include "tessera/tuning/gemm_registry.hpp"

namespace tessera::profiler {

void register_all(tuning::GemmRegistry& registry);
void register_all(tuning::ConvRegistry& registry);
void register_all(tuning::AttentionRegistry& registry);
char const* registry_space();       // TESSERA_PROFILER_SPACE: "default" or "reduced"
char const* registry_conv_space();  // the convolutions' (TESSERA_PROFILER_CONV_SPACE): "reduced", "default" or "wide"
char const* registry_attention_space();  // attention's (TESSERA_PROFILER_ATTENTION_SPACE): the same three
char const* registry_filter();      // TESSERA_PROFILER_KERNELS: the name filter ("" for none)
int registry_sm90_left_out();       // sm90 GEMM configurations left out: no 90a in CMAKE_CUDA_ARCHITECTURES
int registry_conv_sm90_left_out();  // sm90 convolution configurations left out for the same reason
int registry_attention_sm90_left_out();  // sm90 attention kernels left out for the same reason

}  // namespace tessera::profiler
