// A float* for a bf16 bias stage, in braces.
// expect: epilogue::Chain: an initializer cannot make its stage
#include "tessera/core/numeric_types.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

using Epi = tessera::epilogue::Chain<tessera::epilogue::Bias<tessera::epilogue::PerColumn, tessera::bfloat16_t>,
                                     tessera::epilogue::GeluTanh>;

int main() {
  float const* bias = nullptr;
  Epi const e{{bias}, {}};
  return e(1.0f, {}) > 0.0f ? 0 : 1;
}
