// Mode 2 of a rank-2 tuple.
// expect: tessera::get: mode index out of range; the index must be less than the rank
#include "tessera/core/tuple.hpp"

int main() {
  auto t = tessera::make_tuple(1, 2);
  (void)tessera::get<2>(t);
  return 0;
}
