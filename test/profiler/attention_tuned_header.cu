// The header `gpu.profiler.attention_end_to_end` emitted (attention_end_to_end.hpp, from a profile
// of one causal problem) compiles: attention::Tuned over its table with the profiled mask and with
// a chain of the application's own, each entry's kernel instantiated through run(). Compiled by the
// test gpu.profiler.attention_emitted_header_compiles.
#include "attention_end_to_end.hpp"
#include "tessera/attention/masks.hpp"

namespace {
using Causal = tessera::attention::Tuned<attention_end_to_end::bf16_hd128_causal,
                                         tessera::attention::ScoreChain<tessera::attention::Causal<tessera::attention::BottomRight>>>;
using Capped = tessera::attention::Tuned<attention_end_to_end::bf16_hd128_causal,
                                         tessera::attention::ScoreChain<tessera::attention::Softcap, tessera::attention::Causal<tessera::attention::TopLeft>>>;
}  // namespace

tessera::Status run_both(Causal::Arguments const& a, Capped::Arguments const& b) {
  TESSERA_RETURN_IF_ERROR(Causal::run(a));
  return Capped::run(b);
}
