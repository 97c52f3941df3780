// TMA's im2col mode on the device, against the convolution index math (conv/implicit_gemm.hpp):
// an im2col map of an NHWC bf16 tensor whose bounding box is the convolution's (corners -pad and
// pad - dilation (filter - 1), element strides the stride), loaded at the first output pixel of a
// tile (its input coordinate o stride - pad) through a filter tap's offsets, gives in shared
// memory the A tile of that k-tile: row i is output pixel m0 + i's input pixel through the tap
// (zero where that is padding or past the last image), 64 channels from c0. Unswizzled, so that
// the rows read back as they are.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "../support/device_check.hpp"
#include "tessera/arch/sm80/ldmatrix.hpp"
#include "tessera/arch/sm90/mbarrier.hpp"
#include "tessera/arch/sm90/tensor_map.hpp"
#include "tessera/conv/implicit_gemm.hpp"

using namespace tessera;
using arch::sm90::TmaDescriptor;
using tessera::test::DeviceBuffer;

namespace {

constexpr int kPixels = 32, kChannels = 64;  // a box: 32 pixels of 64 channels (128 bytes each)

__global__ void load_im2col(__grid_constant__ TmaDescriptor const map, int c0, int w, int h, int n, int off_w, int off_h,
                            bfloat16_t* out) {
  __shared__ alignas(1024) bfloat16_t tile[kPixels * kChannels];
  __shared__ alignas(8) std::uint64_t full;
  std::uint32_t const bar = arch::smem_address(&full);
  if (threadIdx.x == 0) {
    arch::mbarrier_init(bar, 1);
    arch::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    arch::mbarrier_arrive_expect_tx(bar, kPixels * kChannels * sizeof(bfloat16_t));
    arch::sm90::tma_load_im2col_4d(arch::smem_address(tile), &map, c0, w, h, n, bar, std::uint16_t(off_w), std::uint16_t(off_h));
  }
  arch::mbarrier_wait(bar, 0);
  for (int i = threadIdx.x; i < kPixels * kChannels; i += blockDim.x) out[i] = tile[i];
}

// Loads the tile of output pixels m0 .. m0 + 31 through tap (r, s), channels c0 .. c0 + 63, and
// compares it with the index math; returns the mismatches.
int check_tile(conv::Problem const& p, int m0, int r, int s, int c0) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> v(-100, 100);
  std::vector<bfloat16_t> x(static_cast<std::size_t>(p.input_elements()));
  for (auto& e : x) {
    int const t = v(rng);
    e = bfloat16_t(float(t == 0 ? 1 : t) / 8.0f);  // non-zero: a zero in the tile is padding
  }
  DeviceBuffer<bfloat16_t> dx(x), out(kPixels * kChannels);
  std::uint64_t const dims[4] = {std::uint64_t(p.c), std::uint64_t(p.w), std::uint64_t(p.h), std::uint64_t(p.n)};
  std::uint64_t const strides[3] = {std::uint64_t(p.c) * 2, std::uint64_t(p.c) * p.w * 2, std::uint64_t(p.c) * p.w * p.h * 2};
  int const lower[2] = {-p.pad_before[2], -p.pad_before[1]};
  int const upper[2] = {p.pad_after[2] - p.dilation[2] * (p.s - 1), p.pad_after[1] - p.dilation[1] * (p.r - 1)};
  std::uint32_t const element_strides[4] = {1, std::uint32_t(p.stride[2]), std::uint32_t(p.stride[1]), 1};
  TmaDescriptor map;
  Status const st = arch::sm90::make_tensor_map_im2col(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, dx.get(), 4, dims, strides, lower, upper,
                                                       kChannels, kPixels, element_strides, arch::sm90::TmaSwizzle::kNone);
  INFO(st.message());
  REQUIRE(st.ok());
  conv::Pixel const o = conv::output_pixel(p, m0);
  load_im2col<<<1, 128>>>(map, c0, conv::input_coord(p, 2, o.at[2], 0), conv::input_coord(p, 1, o.at[1], 0), o.n, s * p.dilation[2],
                          r * p.dilation[1], out.get());
  TESSERA_CUDA_REQUIRE_LAUNCH();
  auto const got = out.to_host();
  int bad = 0;
  std::int64_t const pixels = std::int64_t(p.n) * p.p() * p.q();
  for (int i = 0; i < kPixels; ++i) {
    conv::Pixel const q = conv::output_pixel(p, m0 + i);
    int const hh = conv::input_coord(p, 1, q.at[1], r), ww = conv::input_coord(p, 2, q.at[2], s);
    bool const in = m0 + i < pixels && hh >= 0 && hh < p.h && ww >= 0 && ww < p.w;
    for (int c = 0; c < kChannels; ++c) {
      float const want = in ? x[std::size_t(((std::int64_t(q.n) * p.h + hh) * p.w + ww) * p.c + c0 + c)].to_float() : 0.0f;
      bad += got[std::size_t(i * kChannels + c)].to_float() != want;
    }
  }
  return bad;
}

conv::Problem problem(int n, int h, int w, int c, int r, int pad, int stride, int dilation) {
  conv::Problem p;
  p.n = n, p.h = h, p.w = w, p.c = c, p.k = 8, p.r = p.s = r;
  p.pad_before = p.pad_after = {0, pad, pad};
  p.stride = {1, stride, stride};
  p.dilation = {1, dilation, dilation};
  return p;
}

}  // namespace

TEST_CASE("TMA im2col loads are the convolution's gathered A tiles", "[gpu][tma][conv]") {
  test::require_gpu();
  conv::Problem const p = problem(2, 7, 9, 128, 3, 1, 1, 1);  // 3x3 pad 1: P x Q = 7 x 9 per image
  CHECK(check_tile(p, 0, 0, 0, 0) == 0);      // corner tap: the first row and column read padding
  CHECK(check_tile(p, 5, 1, 2, 64) == 0);     // a tile across rows, the second channel block
  CHECK(check_tile(p, 50, 2, 1, 0) == 0);     // across images (63 pixels a image), past the last
  conv::Problem const strided = problem(3, 11, 10, 64, 3, 2, 2, 2);  // stride 2, dilation 2, pad 2
  CHECK(check_tile(strided, 0, 1, 1, 0) == 0);
  CHECK(check_tile(strided, 17, 2, 0, 0) == 0);
  CHECK(check_tile(strided, 70, 0, 2, 0) == 0);
}
