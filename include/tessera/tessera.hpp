// Tessera: everything public, for applications. Library code includes the narrow header it needs.
// Under any compiler: the core (layouts, numeric types, Status) and the epilogue stages. Under a
// GPU compiler (nvcc, or hipcc for AMD): the GEMM (gemm::Gemm, its Config and Arguments), and with
// nvcc gemm::Tuned, the dispatch from a table the profiler emitted.
//
//   #include <tessera/tessera.hpp>
//   using Cfg = tessera::gemm::Config<tessera::arch::Sm90, ...>;   // README.md
//   tessera::gemm::Gemm<Cfg>{}.run(args, workspace, stream);
#pragma once

#include "tessera/core/array.hpp"
#include "tessera/core/concepts.hpp"
#include "tessera/core/config.hpp"
#include "tessera/core/int_tuple.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/layout_algebra.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/core/print.hpp"
#include "tessera/core/status.hpp"
#include "tessera/core/swizzle.hpp"
#include "tessera/core/tuple.hpp"

#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

#if defined(TESSERA_CUDA) || defined(TESSERA_HIP)
#  include "tessera/gemm/gemm.hpp"
#endif
#if defined(TESSERA_CUDA)
#  include "tessera/gemm/tuned.hpp"
#endif
