// 03_layouts: the vocabulary every Tessera kernel is written in.
//
// A layout maps coordinates to offsets. This example builds a matrix layout, tiles it the way a
// GEMM tiles its output across thread blocks, swizzles a shared-memory tile, and converts floats
// to the narrow types the tensor cores read. The host prints the results; where a CUDA GPU is
// present, a kernel evaluates the same layouts and conversions on the device and the host checks
// that both agree. Build: see README.md; run: ./03_layouts
#include <cstdio>
#include <vector>

#include "tessera/tessera.hpp"

using namespace tessera;

// A 1000 x 700 row-major matrix with leading dimension 704 (run-time extents), tiled into
// 128 x 64 blocks: tiles(make_tuple(i, j), m, n) is element (i, j) of block (m, n).
TESSERA_HOST_DEVICE inline auto matrix_tiles(int m, int n, int ld) {
  auto matrix = make_layout(make_tuple(m, n), make_tuple(ld, Int<1>{}));
  return tiled_divide(matrix, make_tuple(Int<128>{}, Int<64>{}));
}

// A 8 x 64 half-precision shared-memory tile whose rows are 128 bytes: swizzled so that 8 threads
// reading the same 16-byte column of 8 rows hit 8 different bank groups.
// The floats converted on both sides: one multiplication, so that no fused multiply-add can make
// the device's input differ from the host's.
TESSERA_HOST_DEVICE inline float sample(int i) { return float(i - 512) * 0.37f; }

TESSERA_HOST_DEVICE inline auto smem_tile() {
  return composition(Swizzle<3, 3, 3>{}, make_layout(make_tuple(Int<8>{}, Int<64>{}), make_tuple(Int<64>{}, Int<1>{})));
}

#if defined(__CUDACC__)
#include <cuda_runtime.h>

__global__ void evaluate_on_device(int* tile_offsets, int* swizzled, unsigned short* bf16_bits, int m, int n, int ld) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto tiles = matrix_tiles(m, n, ld);
  if (i < 128 * 64) tile_offsets[i] = tiles(make_tuple(i % 128, i / 128), 2, 3);  // block (2, 3)
  if (i < 512) swizzled[i] = smem_tile()(i);
  if (i < 1024) bf16_bits[i] = bfloat16_t(sample(i)).bits();
  if (i == 0) {
    printf("device: tiles = ");
    print(tiles);
    printf("\n");
  }
}

// Runs the kernel and compares with the host. Returns false when no GPU is present.
bool check_on_device(int m, int n, int ld) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return false;
  int *d_tiles, *d_swz;
  unsigned short* d_bits;
  cudaMalloc(&d_tiles, 128 * 64 * sizeof(int));
  cudaMalloc(&d_swz, 512 * sizeof(int));
  cudaMalloc(&d_bits, 1024 * sizeof(unsigned short));
  evaluate_on_device<<<32, 256>>>(d_tiles, d_swz, d_bits, m, n, ld);
  std::vector<int> tiles(128 * 64), swz(512);
  std::vector<unsigned short> bits(1024);
  cudaMemcpy(tiles.data(), d_tiles, tiles.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(swz.data(), d_swz, swz.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaError_t err = cudaMemcpy(bits.data(), d_bits, bits.size() * 2, cudaMemcpyDeviceToHost);
  cudaFree(d_tiles);
  cudaFree(d_swz);
  cudaFree(d_bits);
  if (err != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(err));
    std::exit(1);
  }
  auto host_tiles = matrix_tiles(m, n, ld);
  int mismatches = 0;
  for (int i = 0; i < 128 * 64; ++i) mismatches += tiles[i] != host_tiles(make_tuple(i % 128, i / 128), 2, 3);
  for (int i = 0; i < 512; ++i) mismatches += swz[i] != smem_tile()(i);
  for (int i = 0; i < 1024; ++i) mismatches += bits[i] != bfloat16_t(sample(i)).bits();
  std::printf("device: %d mismatches against the host in %d values\n", mismatches, 128 * 64 + 512 + 1024);
  if (mismatches != 0) std::exit(1);
  return true;
}
#else
bool check_on_device(int, int, int) { return false; }
#endif

int main() {
  int const m = 1000, n = 700, ld = 704;
  auto tiles = matrix_tiles(m, n, ld);
  std::printf("matrix 1000x700 (ld 704) tiled by 128x64: %s\n", to_string(tiles).c_str());
  std::printf("  element (5, 7) of block (2, 3) is at offset %d = (2*128+5)*704 + 3*64+7\n",
              int(tiles(make_tuple(5, 7), 2, 3)));
  std::printf("  blocks: %d x %d (the last ones partial: predicate residues in kernels)\n",
              int(ceil_div(m, 128)), int(ceil_div(n, 64)));

  auto swz = smem_tile();
  std::printf("shared-memory tile %s, 16-byte chunk 0 of rows 0..7 lands in bank groups:", to_string(swz).c_str());
  for (int r = 0; r < 8; ++r) std::printf(" %d", (swz(r, 0) * 2 / 16) % 8);
  std::printf("\n");

  float x = 3.14159265f;
  std::printf("%.8f as half %.8f, bfloat16 %.8f, e4m3 %.8f, e5m2 %.8f, tf32 %.8f\n", x, float(half_t(x)),
              float(bfloat16_t(x)), float(float8_e4m3_t(x)), float(float8_e5m2_t(x)), round_to_tf32(x));

  if (!check_on_device(m, n, ld)) {
    std::printf("no CUDA GPU found: ran the host part only (the device check needs a GPU)\n");
  }
  return 0;
}
