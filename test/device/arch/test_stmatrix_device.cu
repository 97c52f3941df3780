// stmatrix on the device: a warp's fragment registers (register i of lane t = row t / 4, columns
// 2 (t % 4) and + 1 of matrix i) land at the rows whose addresses lanes 8 i .. 8 i + 7 give, as
// they are (x1, x2, x4) or transposed (x4.trans). The four matrices go to scattered places of a
// 32 x 32 tile, one matrix per 8 x 8 block, so a wrong lane-to-matrix mapping shows.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../support/device_check.hpp"
#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/arch/sm90/stmatrix.hpp"

using namespace tessera;
using tessera::test::DeviceBuffer;

namespace {

constexpr int kTile = 32;  // 32 x 32 16-bit elements: 16 blocks of 8 x 8
// Matrix i goes to block (row, col) of the tile: scattered, not in lane order ((2, 1), (0, 3), (3, 0), (1, 2)).
TESSERA_HD constexpr int block_row(int i) { return (0x1302 >> (4 * i)) & 0xF; }
TESSERA_HD constexpr int block_col(int i) { return (0x2031 >> (4 * i)) & 0xF; }

// The value register i of lane t carries at element e: matrix i, row t / 4, column 2 (t % 4) + e.
TESSERA_HD constexpr std::uint16_t value(int i, int row, int col) { return std::uint16_t(1000 * (i + 1) + 8 * row + col); }

template <int X, bool Trans>
__global__ void store_matrices(std::uint16_t* out) {
  __shared__ alignas(16) std::uint16_t tile[kTile * kTile];
  int const t = int(threadIdx.x);
  for (int i = t; i < kTile * kTile; i += 32) tile[i] = 0xFFFF;
  __syncwarp();
  std::uint32_t r[4];
  for (int i = 0; i < 4; ++i)
    r[i] = std::uint32_t(value(i, t / 4, 2 * (t % 4))) | std::uint32_t(value(i, t / 4, 2 * (t % 4) + 1)) << 16;
  int const m = (t / 8) % X, row = t % 8;  // lanes past 8 X repeat addresses (ignored by stmatrix)
  std::uint32_t const addr = arch::smem_address(&tile[(8 * block_row(m) + row) * kTile + 8 * block_col(m)]);
  if constexpr (Trans) arch::sm90::stmatrix_x4_trans(addr, r[0], r[1], r[2], r[3]);
  else if constexpr (X == 4) arch::sm90::stmatrix_x4(addr, r[0], r[1], r[2], r[3]);
  else if constexpr (X == 2) arch::sm90::stmatrix_x2(addr, r[0], r[1]);
  else arch::sm90::stmatrix_x1(addr, r[0]);
  __syncwarp();
  for (int i = t; i < kTile * kTile; i += 32) out[i] = tile[i];
}

template <int X, bool Trans>
void check() {
  tessera::test::require_gpu();
  DeviceBuffer<std::uint16_t> out(kTile * kTile);
  store_matrices<X, Trans><<<1, 32>>>(out.get());
  TESSERA_CUDA_REQUIRE(cudaGetLastError());
  TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
  auto const got = out.to_host();
  std::vector<std::uint16_t> want(kTile * kTile, 0xFFFF);
  for (int i = 0; i < X; ++i)
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c)
        want[std::size_t((8 * block_row(i) + r) * kTile + 8 * block_col(i) + c)] = Trans ? value(i, c, r) : value(i, r, c);
  int wrong = 0;
  for (std::size_t i = 0; i < want.size(); ++i) wrong += got[i] != want[i];
  INFO("x" << X << (Trans ? ".trans" : "") << ": first element " << got[0] << ", wanted " << want[0]);
  REQUIRE(wrong == 0);
}

}  // namespace

TEST_CASE("stmatrix stores fragment registers as 8 x 8 matrices", "[gpu][arch][sm90][stmatrix]") {
  SECTION("x1") { check<1, false>(); }
  SECTION("x2") { check<2, false>(); }
  SECTION("x4") { check<4, false>(); }
  SECTION("x4.trans") { check<4, true>(); }
}
