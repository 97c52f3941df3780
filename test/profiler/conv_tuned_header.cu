// The header `gpu.profiler.conv_end_to_end` emitted (conv_end_to_end.hpp, from a profile of the
// three directions) compiles: conv::Tuned over each of its tables, each entry's kernel
// instantiated through run(). Compiled by the test gpu.profiler.conv_emitted_header_compiles.
#include "conv_end_to_end.hpp"

namespace {
using Fprop = tessera::conv::Tuned<conv_end_to_end::bf16_fprop>;
using Dgrad = tessera::conv::Tuned<conv_end_to_end::bf16_dgrad>;
using Wgrad = tessera::conv::Tuned<conv_end_to_end::bf16_wgrad>;
static_assert(Fprop::direction == tessera::conv::Direction::kFprop && Dgrad::direction == tessera::conv::Direction::kDgrad &&
              Wgrad::direction == tessera::conv::Direction::kWgrad);
}  // namespace

tessera::Status run_all(Fprop::Arguments const& f, Dgrad::Arguments const& d, Wgrad::Arguments const& w, void* workspace) {
  TESSERA_RETURN_IF_ERROR(Fprop::run(f, workspace));
  TESSERA_RETURN_IF_ERROR(Dgrad::run(d, workspace));
  return Wgrad::run(w, workspace);
}
