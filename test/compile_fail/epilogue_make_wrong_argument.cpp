// A float* for a bf16 bias stage, through the named builder.
// expect: epilogue::Chain::make: an argument cannot make its stage
#include "tessera/core/numeric_types.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

using Epi = tessera::epilogue::Chain<tessera::epilogue::Bias<tessera::epilogue::PerColumn, tessera::bfloat16_t>,
                                     tessera::epilogue::GeluTanh>;

int main() {
  float* bias = nullptr;
  Epi const e = Epi::make(bias);
  return e(1.0f, {}) > 0.0f ? 0 : 1;
}
