// `tessera-profile emit`: the fastest verified configuration per profiled problem, as a C++
// header of gemm::TunedTable values (one per element types, layout and epilogue) for
// gemm::Tuned<table, Epilogue> to dispatch from.
#pragma once

#include <string>

#include "report.hpp"
#include "tessera/core/status.hpp"

namespace tessera::profiler {

struct EmitOptions {
  std::string namespace_name = "tessera_tuned";
};

// The tables' names: "<dtype>_<layout>" plus "_<epilogue>" for a fused one ("bf16_tn", "bf16_tn_bias_gelu").
std::string table_name(Result const& r);

// Fails when the report has no passed result, or names a configuration this version's space lacks.
Status emit_header(Report const& report, EmitOptions const& options, std::string& header);

}  // namespace tessera::profiler
