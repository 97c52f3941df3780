// A rank-2 shape with a single stride.
// expect: make_layout: shape and stride are not congruent; give one stride per shape mode
#include "tessera/core/layout.hpp"

int main() {
  using namespace tessera;
  auto l = make_layout(make_tuple(Int<4>{}, Int<2>{}), Int<1>{});
  return int(l(0));
}
