// A 3-bit XOR field shifted by only 2 would overlap the bits it reads.
// expect: Swizzle: Shift must be at least Bits so that the XOR source and target fields do not overlap
#include "tessera/core/swizzle.hpp"

int main() {
  tessera::Swizzle<3, 4, 2> swz;
  return swz(17);
}
