// One pointer for a ScaleShift stage (scale and shift): it would leave the shift empty.
// expect: epilogue::Chain::make: an argument cannot make its stage
#include "tessera/epilogue/activations.hpp"
#include "tessera/epilogue/tensor_stages.hpp"

using Epi = tessera::epilogue::Chain<tessera::epilogue::ScaleShift<tessera::epilogue::PerColumn>, tessera::epilogue::Relu>;

int main() {
  float const* scale = nullptr;
  Epi const e = Epi::make(scale);
  return e(1.0f, {}) > 0.0f ? 0 : 1;
}
