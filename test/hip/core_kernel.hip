// Compiles the core headers in a HIP device kernel (CI check: no AMD GPU is needed to build).
// The kernel evaluates a static layout, a dynamic tiled layout, a swizzle and the narrow-float
// conversions, so that each is instantiated for the device.
#include <hip/hip_runtime.h>

#include "tessera/core/layout_algebra.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/core/print.hpp"
#include "tessera/core/swizzle.hpp"

using namespace tessera;

__global__ void core_on_device(int* offsets, unsigned short* bits, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto tile = make_layout(make_tuple(Int<8>{}, Int<64>{}), make_tuple(Int<64>{}, Int<1>{}));
  auto swizzled = composition(Swizzle<3, 3, 3>{}, tile);
  auto tiled = zipped_divide(make_layout(make_tuple(m, n)), make_tuple(Int<4>{}, Int<8>{}));
  if (i < size(tile)) offsets[i] = swizzled(i);
  if (i < m * n) offsets[512 + i] = tiled(i);
  float x = float(i) * 0.37f - 11.0f;
  bits[4 * i + 0] = half_t(x).bits();
  bits[4 * i + 1] = bfloat16_t(x).bits();
  bits[4 * i + 2] = float8_e4m3_t(x).bits();
  bits[4 * i + 3] = float8_e5m2_t(x).bits();
  if (i == 0) print(tiled);
}

int main() {
  int* offsets = nullptr;
  unsigned short* bits = nullptr;
  if (hipMalloc(&offsets, 4096 * sizeof(int)) != hipSuccess) return 0;  // no device: compile check only
  (void)hipMalloc(&bits, 4 * 1024 * sizeof(unsigned short));
  core_on_device<<<4, 256>>>(offsets, bits, 12, 16);
  (void)hipDeviceSynchronize();
  return 0;
}
