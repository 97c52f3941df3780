// TMA on the device: boxes of a strided bf16 matrix loaded into shared memory with the 128-byte
// swizzle land where tile::SwizzledTile puts them (so wgmma descriptors of that tile read them),
// elements past the matrix's edges arrive as zeros, the copy completes on an mbarrier's
// transaction count; boxes stored back from shared memory write only the elements inside the
// matrix (the rest keep their poison). A 3-D map addresses batches.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "../support/device_check.hpp"
#include "tessera/arch/sm80/ldmatrix.hpp"
#include "tessera/arch/sm90/mbarrier.hpp"
#include "tessera/arch/sm90/tensor_map.hpp"
#include "tessera/arch/sm90/wgmma.hpp"
#include "tessera/tile/smem_layout.hpp"

using namespace tessera;
using arch::sm90::TmaDescriptor;
using arch::sm90::TmaSwizzle;
using tessera::test::DeviceBuffer;

namespace {

constexpr int kRows = 200, kCols = 136, kLd = 144;  // the matrix; rows 288 bytes apart
constexpr int kBox = 64;                            // 64 x 64 boxes: 128-byte rows
using Tile = tile::SwizzledTile<bfloat16_t, kBox, kBox>;

// Loads the box at (col, row, batch) and writes it out in row-major order through the tile layout.
__global__ void load_box(__grid_constant__ TmaDescriptor const map, int col, int row, int batch, bool three_d, bfloat16_t* out) {
  __shared__ alignas(1024) bfloat16_t tile[Tile::size];
  __shared__ alignas(8) std::uint64_t full;
  std::uint32_t const bar = arch::smem_address(&full);
  if (threadIdx.x == 0) {
    arch::sm90::tma_prefetch_descriptor(&map);
    arch::mbarrier_init(bar, 1);
    arch::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    arch::mbarrier_arrive_expect_tx(bar, Tile::size * sizeof(bfloat16_t));  // out-of-bounds zeros count too
    if (three_d) arch::sm90::tma_load_3d(arch::smem_address(tile), &map, col, row, batch, bar);
    else arch::sm90::tma_load_2d(arch::smem_address(tile), &map, col, row, bar);
  }
  arch::mbarrier_wait(bar, 0);
  for (int i = threadIdx.x; i < Tile::size; i += blockDim.x) out[i] = tile[Tile::layout()(i / kBox, i % kBox)];
}

// Fills a box in the tile layout with in[] (row-major) and stores it at (col, row).
__global__ void store_box(__grid_constant__ TmaDescriptor const map, int col, int row, bfloat16_t const* in) {
  __shared__ alignas(1024) bfloat16_t tile[Tile::size];
  for (int i = threadIdx.x; i < Tile::size; i += blockDim.x) tile[Tile::layout()(i / kBox, i % kBox)] = in[i];
  arch::sm90::fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    arch::sm90::tma_store_2d(&map, col, row, arch::smem_address(tile));
    arch::sm90::tma_store_commit();
    arch::sm90::tma_store_wait<0>();
  }
}

std::vector<bfloat16_t> random_matrix(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  std::vector<bfloat16_t> h(n);
  for (auto& x : h) x = bfloat16_t(u(rng));
  return h;
}

float bits_value(bfloat16_t x) { return float(x); }

}  // namespace

TEST_CASE("TMA loads swizzled boxes, zero-filled past the edges", "[gpu][arch][sm90][tma]") {
  tessera::test::require_gpu();
  constexpr int kBatch = 3;
  auto const host = random_matrix(std::size_t(kBatch) * kRows * kLd, 7);
  DeviceBuffer<bfloat16_t> matrix(host);
  TmaDescriptor map2{}, map3{};
  Status const s = arch::sm90::make_tensor_map_2d(map2, matrix.get(), kCols, kRows, kLd, kBox, kBox, TmaSwizzle::k128B);
  INFO(s.message());
  REQUIRE(s.ok());
  Status const s3 = arch::sm90::make_tensor_map_3d(map3, matrix.get(), kCols, kRows, kLd, kBatch, std::uint64_t(kRows) * kLd, kBox,
                                                   kBox, TmaSwizzle::k128B);
  INFO(s3.message());
  REQUIRE(s3.ok());
  struct Case {
    int col, row, batch;
    bool three_d;
  };
  // interior, the bottom-right corner (8 of 64 columns and rows inside), a negative origin, a batch
  for (Case c : {Case{64, 64, 0, false}, Case{128, 192, 0, false}, Case{-8, -3, 0, false}, Case{40, 150, 2, true}}) {
    INFO("box at column " << c.col << ", row " << c.row << ", batch " << c.batch);
    DeviceBuffer<bfloat16_t> out(Tile::size);  // poisoned
    load_box<<<1, 128>>>(c.three_d ? map3 : map2, c.col, c.row, c.batch, c.three_d, out.get());
    TESSERA_CUDA_REQUIRE_LAUNCH();
    auto const got = out.to_host();
    int bad = 0;
    for (int r = 0; r < kBox; ++r)
      for (int k = 0; k < kBox; ++k) {
        int const gr = c.row + r, gc = c.col + k;
        bool const inside = gr >= 0 && gr < kRows && gc >= 0 && gc < kCols;
        float const want = inside ? bits_value(host[std::size_t(c.batch) * kRows * kLd + std::size_t(gr) * kLd + gc]) : 0.f;
        if (bits_value(got[r * kBox + k]) != want && ++bad <= 5)
          UNSCOPED_INFO("(" << r << ", " << k << "): " << bits_value(got[r * kBox + k]) << ", want " << want);
      }
    CHECK(bad == 0);
  }
}

TEST_CASE("TMA stores boxes, clipped at the edges", "[gpu][arch][sm90][tma]") {
  tessera::test::require_gpu();
  auto const box = random_matrix(Tile::size, 11);
  DeviceBuffer<bfloat16_t> in(box);
  for (auto [col, row] : {std::pair{0, 0}, std::pair{104, 170}}) {  // inner coordinates: 16-byte multiples
    INFO("box at column " << col << ", row " << row);
    DeviceBuffer<bfloat16_t> matrix(std::size_t(kRows) * kLd);  // poisoned
    auto const poison = matrix.to_host();
    TmaDescriptor map{};
    Status const s = arch::sm90::make_tensor_map_2d(map, matrix.get(), kCols, kRows, kLd, kBox, kBox, TmaSwizzle::k128B);
    INFO(s.message());
    REQUIRE(s.ok());
    store_box<<<1, 128>>>(map, col, row, in.get());
    TESSERA_CUDA_REQUIRE_LAUNCH();
    auto const got = matrix.to_host();
    int bad = 0;
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kLd; ++c) {
        bool const inside = c < kCols && r >= row && r < row + kBox && c >= col && c < col + kBox;
        std::size_t const i = std::size_t(r) * kLd + c;
        float const want = inside ? bits_value(box[(r - row) * kBox + (c - col)]) : bits_value(poison[i]);
        bool const same = inside ? bits_value(got[i]) == want : std::memcmp(&got[i], &poison[i], sizeof(bfloat16_t)) == 0;
        if (!same && ++bad <= 5) UNSCOPED_INFO("(" << r << ", " << c << "): " << bits_value(got[i]) << ", want " << want);
      }
    CHECK(bad == 0);
  }
}

namespace {
// Loads the 4-D box at (d, s, h, b) and writes it out row-major through the tile layout; then
// stores it back at (d, s2, h2, b2) of `dst`'s map.
__global__ void copy_box_4d(__grid_constant__ TmaDescriptor const src, __grid_constant__ TmaDescriptor const dst, int d, int s, int h, int b,
                            int s2, int h2, int b2, bfloat16_t* out) {
  __shared__ alignas(1024) bfloat16_t tile[Tile::size];
  __shared__ alignas(8) std::uint64_t full;
  std::uint32_t const bar = arch::smem_address(&full);
  if (threadIdx.x == 0) {
    arch::mbarrier_init(bar, 1);
    arch::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    arch::mbarrier_arrive_expect_tx(bar, Tile::size * sizeof(bfloat16_t));
    arch::sm90::tma_load_4d(arch::smem_address(tile), &src, d, s, h, b, bar);
  }
  arch::mbarrier_wait(bar, 0);
  for (int i = threadIdx.x; i < Tile::size; i += blockDim.x) out[i] = tile[Tile::layout()(i / kBox, i % kBox)];
  __syncthreads();
  if (threadIdx.x == 0) {
    arch::sm90::tma_store_4d(&dst, d, s2, h2, b2, arch::smem_address(tile));
    arch::sm90::tma_store_commit();
    arch::sm90::tma_store_wait<0>();
  }
}
}  // namespace

TEST_CASE("TMA 4-D maps address (head dim, sequence, head, batch) by strides: BSHD and BHSD", "[gpu][arch][sm90][tma]") {
  tessera::test::require_gpu();
  constexpr int D = 128, S = 100, H = 3, B = 2;
  auto const host = random_matrix(std::size_t(B) * S * H * D, 13);
  DeviceBuffer<bfloat16_t> tensor(host);
  for (bool bshd : {true, false}) {
    // Strides of sequence, head and batch, in elements.
    std::uint64_t const stride[3] = {bshd ? std::uint64_t(H) * D : std::uint64_t(D), bshd ? std::uint64_t(D) : std::uint64_t(S) * D,
                                     std::uint64_t(S) * H * D};
    auto const at = [&](int d, int s, int h, int b) { return std::size_t(b * stride[2] + s * stride[0] + h * stride[1] + d); };
    std::uint64_t const extent[4] = {D, S, H, B};
    std::uint32_t const box[4] = {kBox, kBox, 1, 1};
    DeviceBuffer<bfloat16_t> copy(host.size());  // poisoned
    auto const poison = copy.to_host();
    TmaDescriptor src{}, dst{};
    REQUIRE(arch::sm90::make_tensor_map_4d(src, tensor.get(), extent, stride, box, TmaSwizzle::k128B).ok());
    REQUIRE(arch::sm90::make_tensor_map_4d(dst, copy.get(), extent, stride, box, TmaSwizzle::k128B).ok());
    // The box at dims 64.., positions 60.. (rows 100.. past the end: zeros), head 2, batch 1;
    // stored back at positions 10.., head 0, batch 0.
    DeviceBuffer<bfloat16_t> out(Tile::size);
    copy_box_4d<<<1, 128>>>(src, dst, 64, 60, 2, 1, 10, 0, 0, out.get());
    TESSERA_CUDA_REQUIRE_LAUNCH();
    auto const got = out.to_host();
    auto const stored = copy.to_host();
    int bad = 0;
    for (int r = 0; r < kBox; ++r)
      for (int k = 0; k < kBox; ++k) {
        float const want = 60 + r < S ? bits_value(host[at(64 + k, 60 + r, 2, 1)]) : 0.f;
        if (bits_value(got[r * kBox + k]) != want && ++bad <= 5) UNSCOPED_INFO("load (" << r << ", " << k << "): want " << want);
        // The store writes positions 10 .. 73 of head 0, batch 0 (all inside), dims 64 .. 127.
        float const back = bits_value(stored[at(64 + k, 10 + r, 0, 0)]);
        if (back != want && ++bad <= 5) UNSCOPED_INFO("store (" << r << ", " << k << "): " << back << ", want " << want);
      }
    // Nothing else was written.
    for (std::size_t i = 0; i < stored.size(); ++i) {
      bool const written = [&] {
        for (int r = 0; r < kBox; ++r)
          if (i >= at(64, 10 + r, 0, 0) && i < at(64, 10 + r, 0, 0) + kBox) return true;
        return false;
      }();
      if (!written && std::memcmp(&stored[i], &poison[i], sizeof(bfloat16_t)) != 0 && ++bad <= 5) UNSCOPED_INFO("element " << i << " written");
    }
    INFO((bshd ? "BSHD" : "BHSD"));
    CHECK(bad == 0);
  }
}
