// `tessera-profile emit`: the fastest verified configuration per profiled problem, as a C++
// header of gemm::TunedTable values (one per element types, layout and epilogue) for
// gemm::Tuned<table, Epilogue> to dispatch from, of conv::TunedTable values (one per element
// type and direction) for conv::Tuned<table, Epilogue>, and of attention::TunedTable values (one
// per element type, head dimensions and mask, and one of the sm80 kernel's winners beside it where
// the results hold sm80 runs) for attention::Tuned<table, Chain>.
#pragma once

#include <string>

#include "report.hpp"
#include "tessera/conv/problem.hpp"
#include "tessera/core/status.hpp"

namespace tessera::profiler {

struct EmitOptions {
  std::string namespace_name = "tessera_tuned";
};

// The tables' names: "<dtype>_<layout>" plus "_<epilogue>" for a fused one ("bf16_tn", "bf16_tn_bias_gelu");
// a convolution's "<dtype>_<direction>" ("bf16_fprop"); attention's "<dtype>_hd<dim>[x<dim_v>]_<mask>"
// ("bf16_hd128_causal", "f16_hd192x128_none", "e4m3_hd128_none"; masks none, causal, causal_tl,
// window). emit_header adds "_sm80" for the table of the sm80 kernel's winners.
std::string table_name(Result const& r);

// The problem as C++ source: a designated initializer of tessera::conv::Problem, every field.
std::string cpp_initializer(conv::Problem const& p);

// Fails when the report has no passed result, or names a configuration this version's space lacks.
Status emit_header(Report const& report, EmitOptions const& options, std::string& header);

}  // namespace tessera::profiler
