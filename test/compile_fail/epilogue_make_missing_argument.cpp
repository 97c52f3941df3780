// The bias stage's vector left out: make() without arguments for a chain whose first stage has one.
// expect: epilogue::Chain::make: a stage with parameters has no argument
#include "tessera/core/numeric_types.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

using Epi = tessera::epilogue::Chain<tessera::epilogue::Bias<tessera::epilogue::PerColumn, tessera::bfloat16_t>,
                                     tessera::epilogue::GeluTanh>;

int main() {
  Epi const e = Epi::make();
  return e(1.0f, {}) > 0.0f ? 0 : 1;
}
