// The order of a rank-2 layout's modes depends on its strides, which are only known at run time.
// expect: complement: strides of a layout of rank > 1 must be static to order its modes; use Int<N> strides
#include "tessera/core/layout_algebra.hpp"

int main(int argc, char**) {
  using namespace tessera;
  auto a = make_layout(make_tuple(4, 2), make_tuple(argc, 4 * argc));
  auto c = complement(a, 64);
  return int(c(1));
}
