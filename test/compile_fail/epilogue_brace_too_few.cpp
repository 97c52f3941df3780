// One initializer for a chain of two stages, in braces (the rest are not left empty silently).
// expect: epilogue::Chain: not one initializer per stage
#include "tessera/core/numeric_types.hpp"
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

using Epi = tessera::epilogue::Chain<tessera::epilogue::Bias<tessera::epilogue::PerColumn, tessera::bfloat16_t>,
                                     tessera::epilogue::GeluTanh>;

int main() {
  tessera::bfloat16_t const* bias = nullptr;
  Epi const e{{bias}};
  return e(1.0f, {}) > 0.0f ? 0 : 1;
}
