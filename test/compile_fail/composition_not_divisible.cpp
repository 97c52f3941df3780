// Every other element of a 3x8 layout with padded columns (leading dimension 4) cannot be written
// as a layout: 2 does not divide the column extent 3, nor 3 the stride 2.
// expect: composition: a stride of the inner layout does not step evenly through a mode of the outer layout
#include "tessera/core/layout_algebra.hpp"

int main() {
  using namespace tessera;
  auto a = make_layout(make_tuple(Int<3>{}, Int<8>{}), make_tuple(Int<1>{}, Int<4>{}));
  auto r = composition(a, make_layout(Int<12>{}, Int<2>{}));
  return int(r(1));
}
