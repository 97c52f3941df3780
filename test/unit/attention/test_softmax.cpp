// attention::OnlineSoftmax on an emulated warpgroup, over tile::WgmmaAccum (sm90), four warps'
// tile::MmaAccum (sm80, each warp its own 16 rows) and two wavefronts' tile::MfmaAccumT (gfx9, each
// its own 32 rows, split between lanes j and j + 32): scores arriving a block of keys at a time
// (random normal, some masked: whole rows, a row's first block, scattered keys) give the softmax
// of the full row (the weighted sum of a value per key, rescaled as the kernel rescales O) and its
// log-sum-exp, against double precision; rows that see no key give 0 and -infinity.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tessera/attention/softmax.hpp"
#include "tessera/tile/mfma_accum.hpp"
#include "tessera/tile/mma_accum.hpp"
#include "tessera/tile/wgmma_accum.hpp"
#include "warpgroup_emulation.hpp"

using namespace tessera;

namespace {

// The fragment's layout over the emulated warpgroup's 128 threads: rows, values and where thread
// t's value v lies. WgmmaAccum covers the warpgroup; MmaAccum is one warp's, four warps stacked.
template <class A>
struct Rows {
  using Lanes = tile::QuadLanes;
  static constexpr int rows = A::rows, values = A::values;
  static float& value(A& f, int v) { return f.at(v / A::values_per_half, v % A::values_per_half); }
  static int row(int t, int v) { return A::row(t, v); }
  static int local_row(int t, int r) { return A::local_row(t, r); }
};
template <int N>
struct Rows<tile::MmaAccum<N>> {
  using A = tile::MmaAccum<N>;
  using Lanes = tile::QuadLanes;
  static constexpr int rows = 64, values = A::values;
  static float& value(A& f, int v) { return f.at(v); }
  static int row(int t, int v) { return 16 * (t / 32) + A::row(t, v); }
  static int local_row(int t, int r) { return 16 * (t / 32) + A::local_row(t, r); }
};
template <int N>
struct Rows<tile::MfmaAccumT<N>> {
  using A = tile::MfmaAccumT<N>;
  using Lanes = tile::HalfWaveLanes;
  static constexpr int rows = 64, values = A::values;
  static float& value(A& f, int v) { return f.at(v); }
  static int row(int t, int v) { return 32 * (t / 64) + A::row(t, v); }
  static int local_row(int t, int r) { return 32 * (t / 64) + A::local_row(t, r); }
};

template <class A>
void check_online_softmax(int blocks, unsigned seed, float offset = 0.0f) {
  using L = Rows<A>;
  constexpr int R = A::rows_per_thread, rows = L::rows, n = A::cols;
  int const cols = blocks * n;
  float const inf = std::numeric_limits<float>::infinity();
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> s(std::size_t(rows) * std::size_t(cols));
  std::vector<float> value(static_cast<std::size_t>(cols));
  for (auto& x : s) x = normal(rng);
  for (auto& x : value) x = normal(rng);
  auto at = [&](int r, int c) -> float& { return s[std::size_t(r) * cols + c]; };
  for (int c = 0; c < cols; ++c) at(3, c) = -inf;           // a row that sees nothing
  for (int c = 0; c < n; ++c) at(5, c) = -inf;              // a row whose first block is masked
  for (int c = 0; c < cols; c += 3) at(rows - 1, c) = -inf;  // scattered
  float const scale = 0.0883883f;                            // 1 / sqrt(128)

  std::vector<Array<float, R>> o(128), inverse(128), lse(128);
  test::Warpgroup wg;
  wg.run([&](int t, test::Warpgroup::Shfl shfl) {
    attention::OnlineSoftmax<R, typename L::Lanes> sm(scale * attention::kLog2e, offset);
    Array<float, R> acc{};
    for (int b = 0; b < blocks; ++b) {
      A frag;
      for (int v = 0; v < L::values; ++v) L::value(frag, v) = at(L::row(t, v), b * n + A::col(t, v));
      auto const factor = sm.step(frag, shfl);
      for (int r = 0; r < R; ++r) acc[r] *= factor[r];
      for (int v = 0; v < L::values; ++v)  // this thread's part of P V (the quad's parts summed below, as the MMA sums them)
        acc[A::local_row_of(v)] += L::value(frag, v) * value[std::size_t(b * n + A::col(t, v))];
    }
    L::Lanes::allreduce(acc, tile::SumOp{}, shfl);
    auto const fin = sm.finish(shfl);
    for (int r = 0; r < R; ++r) o[t][r] = acc[r] * fin.inverse[r], inverse[t][r] = fin.inverse[r], lse[t][r] = fin.lse[r];
  });

  for (int t = 0; t < 128; ++t)
    for (int r = 0; r < R; ++r) {
      int const row = L::local_row(t, r);
      double top = -inf;
      for (int c = 0; c < cols; ++c) top = std::max(top, double(at(row, c)) * scale);
      INFO("thread " << t << " row " << row);
      if (std::isinf(top)) {
        CHECK(o[t][r] == 0.0f);
        CHECK(inverse[t][r] == 0.0f);
        CHECK((std::isinf(lse[t][r]) && lse[t][r] < 0));
        continue;
      }
      double sum = 0, weighted = 0, mag = 0;
      for (int c = 0; c < cols; ++c) {
        double const p = std::exp(double(at(row, c)) * scale - top);
        sum += p, weighted += p * value[std::size_t(c)], mag += p * std::fabs(value[std::size_t(c)]);
      }
      CHECK(std::fabs(o[t][r] - weighted / sum) <= 1e-5 * mag / sum + 1e-6);
      CHECK(lse[t][r] == Approx(top + std::log(sum)).epsilon(1e-6).margin(1e-5));
    }
}

}  // namespace

TEST_CASE("attention::OnlineSoftmax: the full row's softmax and LSE, a block at a time", "[attention][softmax]") {
  check_online_softmax<tile::WgmmaAccum<float, 64, 1>>(1, 1);
  check_online_softmax<tile::WgmmaAccum<float, 64, 1>>(5, 2);
  check_online_softmax<tile::WgmmaAccum<float, 32, 2>>(7, 3);
  check_online_softmax<tile::WgmmaAccum<float, 128, 1>>(3, 4);
  check_online_softmax<tile::WgmmaAccum<float, 128, 1>>(3, 12, 8.0f);  // fp8's offset: p up to 2^8, O / l and LSE unchanged
}

TEST_CASE("attention::OnlineSoftmax over mma.sync accumulators (the sm80 kernel's)", "[attention][softmax]") {
  check_online_softmax<tile::MmaAccum<64>>(1, 5);
  check_online_softmax<tile::MmaAccum<64>>(5, 6);
  check_online_softmax<tile::MmaAccum<16>>(9, 7);
  check_online_softmax<tile::MmaAccum<128>>(3, 8);
}

TEST_CASE("attention::OnlineSoftmax over transposed MFMA accumulators (the gfx9 kernel's)", "[attention][softmax]") {
  check_online_softmax<tile::MfmaAccumT<32>>(1, 9);
  check_online_softmax<tile::MfmaAccumT<64>>(5, 10);
  check_online_softmax<tile::MfmaAccumT<128>>(3, 11);
}
