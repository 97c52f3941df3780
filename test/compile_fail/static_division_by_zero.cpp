// A tile count computed from a zero extent.
// expect: tessera::C: static division by zero; check the divisor's extent
#include "tessera/core/integral.hpp"

int main() {
  using namespace tessera;
  auto n = Int<128>{} / Int<0>{};
  return int(n);
}
