// A rank-3 tiler for a rank-2 layout.
// expect: tiler: the tiler has more modes than the layout; pass at most rank\(layout\) tile modes
#include "tessera/core/layout_algebra.hpp"

int main() {
  using namespace tessera;
  auto a = make_layout(make_tuple(Int<8>{}, Int<8>{}));
  auto d = zipped_divide(a, make_tuple(Int<2>{}, Int<2>{}, Int<2>{}));
  return int(size(d));
}
