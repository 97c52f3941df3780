// tile::WgmmaAccum, the wgmma accumulator fragment of one warpgroup: its (thread, value) -> (row,
// col) map is a bijection onto the tile and equals the PTX ISA's figure (written out here
// independently of the header), an emulated warpgroup (128 host threads in lockstep at each
// shuffle) reduces rows to the matrix's true row max / sum, and the A operand built from it reads
// back, through the ISA's A-fragment figure, as the rounded accumulators.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/arch/sm90/wgmma.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/tile/wgmma_accum.hpp"
#include "warpgroup_emulation.hpp"

using namespace tessera;

namespace {

// The PTX ISA's figures for wgmma.mma_async.m64nNk16 ("Matrix Fragments for
// wgmma.mma_async.m64nNk16", #wgmma-64n16-d and #wgmma-64n16-a) as formulas: warp w of the
// warpgroup covers rows 16 w .. 16 w + 15, in which each 8 x 8 block repeats the m16n8 pattern
// (lane l: groupID l / 4, threadID_in_group l % 4).
struct Ptx {
  static int warp(int t) { return t / 32; }
  static int group(int t) { return (t % 32) / 4; }
  static int in_group(int t) { return t % 4; }
  // Accumulator element d_i (i < N / 2): pairs (d0, d1) at row g, (d2, d3) at row g + 8, columns
  // 2 q and 2 q + 1; the next four elements 8 columns to the right.
  static int d_row(int t, int i) { return 16 * warp(t) + group(t) + (i % 4 >= 2 ? 8 : 0); }
  static int d_col(int t, int i) { return 8 * (i / 4) + 2 * in_group(t) + i % 2; }
  // A element a_i (i < 8) of one k-step: a0, a1 row g; a2, a3 row g + 8; a4 .. a7 the same, k + 8.
  static int a_row(int t, int i) { return 16 * warp(t) + group(t) + (i == 2 || i == 3 || i == 6 || i == 7 ? 8 : 0); }
  static int a_k(int t, int i) { return 2 * in_group(t) + i % 2 + (i >= 4 ? 8 : 0); }
};

template <class T>
struct Tag {
  using type = T;
};

// The configurations under test: f32 N = 8, 64, 128, 256 and f16 N = 64, 256, one and two halves.
template <class F>
void for_configs(F&& f) {
  f(Tag<tile::WgmmaAccum<float, 8, 1>>{});
  f(Tag<tile::WgmmaAccum<float, 8, 2>>{});
  f(Tag<tile::WgmmaAccum<float, 64, 1>>{});
  f(Tag<tile::WgmmaAccum<float, 64, 2>>{});
  f(Tag<tile::WgmmaAccum<float, 128, 1>>{});
  f(Tag<tile::WgmmaAccum<float, 128, 2>>{});
  f(Tag<tile::WgmmaAccum<float, 256, 1>>{});
  f(Tag<tile::WgmmaAccum<float, 256, 2>>{});
  f(Tag<tile::WgmmaAccum<half_t, 64, 1>>{});
  f(Tag<tile::WgmmaAccum<half_t, 64, 2>>{});
  f(Tag<tile::WgmmaAccum<half_t, 256, 1>>{});
  f(Tag<tile::WgmmaAccum<half_t, 256, 2>>{});
}

template <class A>
char const* acc_name() {
  return A::f32 ? "f32" : "f16";
}

// A row-major rows x cols matrix of floats.
struct Matrix {
  int rows, cols;
  std::vector<float> v;
  Matrix(int r, int c) : rows(r), cols(c), v(std::size_t(r) * std::size_t(c)) {}
  float& operator()(int r, int c) { return v[std::size_t(r) * std::size_t(cols) + std::size_t(c)]; }
  float operator()(int r, int c) const { return v[std::size_t(r) * std::size_t(cols) + std::size_t(c)]; }
};

// Non-zero multiples of 1/4 in [-16, 16]: exact in half, and every row sum is exact in float.
Matrix random_matrix(int rows, int cols, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-64, 64);
  Matrix m(rows, cols);
  for (auto& x : m.v) {
    int k;
    do { k = d(rng); } while (k == 0);
    x = float(k) / 4.0f;
  }
  return m;
}

// Each of the 128 threads' fragment receives the matrix elements the map assigns to it.
template <class A>
std::vector<A> scatter(Matrix const& m) {
  std::vector<A> frags(A::threads, A{});
  for (int t = 0; t < A::threads; ++t)
    for (int mh = 0; mh < A::m_halves; ++mh)
      for (int v = 0; v < A::values_per_half; ++v)
        frags[t].set(mh, v, typename A::value_type(m(A::row(t, mh, v), A::col(t, mh, v))));
  return frags;
}

using test::Warpgroup;  // test/support/warpgroup_emulation.hpp

}  // namespace

TEST_CASE("WgmmaAccum: registers as arch::sm90::Wgmma's, an aggregate without overhead", "[tile][sm90][wgmma_accum]") {
  for_configs([](auto tag) {
    using A = typename decltype(tag)::type;
    using Mma = arch::sm90::Wgmma<A::cols, half_t, half_t, typename A::value_type>;
    STATIC_REQUIRE(std::is_same_v<typename A::Reg, typename Mma::Reg>);
    STATIC_REQUIRE(A::regs_per_half == Mma::regs);
    STATIC_REQUIRE(sizeof(A) == sizeof(typename Mma::Reg) * Mma::regs * A::m_halves);
    STATIC_REQUIRE(std::is_aggregate_v<A>);
    STATIC_REQUIRE(std::is_trivially_copyable_v<A>);
    STATIC_REQUIRE(std::is_trivially_default_constructible_v<A>);
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(std::declval<A&>().regs[0])>, typename Mma::Reg[Mma::regs]>);
    STATIC_REQUIRE(A::rows == 64 * A::m_halves);
    STATIC_REQUIRE(A::values * A::threads == A::rows * A::cols);
    STATIC_REQUIRE(A::values_per_row * A::rows_per_thread == A::values);
  });
}

TEST_CASE("WgmmaAccum: (thread, value) -> (row, col) is a bijection onto rows x cols", "[tile][sm90][wgmma_accum]") {
  for_configs([](auto tag) {
    using A = typename decltype(tag)::type;
    INFO(acc_name<A>() << " N=" << A::cols << " MHalves=" << A::m_halves);
    std::vector<int> hits(std::size_t(A::rows * A::cols), 0);
    auto const tv = A::tv_layout();
    REQUIRE(int(size(tv)) == A::threads * A::values);
    for (int t = 0; t < A::threads; ++t) {
      std::set<int> own_rows;
      for (int v = 0; v < A::values; ++v) {
        int const row = A::row(t, v), col = A::col(t, v);
        REQUIRE(row >= 0);
        REQUIRE(row < A::rows);
        REQUIRE(col >= 0);
        REQUIRE(col < A::cols);
        ++hits[std::size_t(row * A::cols + col)];
        // the other spellings of the same map
        int const mh = v / A::values_per_half, vh = v % A::values_per_half;
        REQUIRE(A::row(t, mh, vh) == row);
        REQUIRE(A::col(t, mh, vh) == col);
        REQUIRE(int(tv(t, v)) == row + A::rows * col);
        REQUIRE(A::row(t + 128, v) == row);  // a block's threadIdx.x of another warpgroup
        // the thread's local rows
        int const r = A::local_row_of(v);
        REQUIRE(r >= 0);
        REQUIRE(r < A::rows_per_thread);
        REQUIRE(A::local_row(t, r) == row);
        own_rows.insert(row);
      }
      REQUIRE(int(own_rows.size()) == A::rows_per_thread);
    }
    for (int h : hits) REQUIRE(h == 1);
  });
}

TEST_CASE("WgmmaAccum: the map is the PTX ISA's wgmma m64nNk16 D fragment", "[tile][sm90][wgmma_accum]") {
  for_configs([](auto tag) {
    using A = typename decltype(tag)::type;
    INFO(acc_name<A>() << " N=" << A::cols << " MHalves=" << A::m_halves);
    // The formula: element d_i of the m64 instruction of half mh is value i of that half.
    for (int t = 0; t < 128; ++t)
      for (int mh = 0; mh < A::m_halves; ++mh)
        for (int i = 0; i < A::cols / 2; ++i) {
          REQUIRE(A::row(t, mh, i) == 64 * mh + Ptx::d_row(t, i));
          REQUIRE(A::col(t, mh, i) == Ptx::d_col(t, i));
        }
    // Cells read off the figure: thread 0 holds (0,0) (0,1) (8,0) (8,1), then 8 columns on.
    REQUIRE((A::row(0, 0) == 0 && A::col(0, 0) == 0));
    REQUIRE((A::row(0, 1) == 0 && A::col(0, 1) == 1));
    REQUIRE((A::row(0, 2) == 8 && A::col(0, 2) == 0));
    REQUIRE((A::row(0, 3) == 8 && A::col(0, 3) == 1));
    if (A::cols >= 16) REQUIRE((A::row(0, 4) == 0 && A::col(0, 4) == 8));
    // Thread 37: warp 1, lane 5 (groupID 1, threadID_in_group 1).
    REQUIRE((A::row(37, 0) == 17 && A::col(37, 0) == 2));
    REQUIRE((A::row(37, 1) == 17 && A::col(37, 1) == 3));
    REQUIRE((A::row(37, 2) == 25 && A::col(37, 2) == 2));
    REQUIRE((A::row(37, 3) == 25 && A::col(37, 3) == 3));
    // Thread 127 (warp 3, lane 31), its last value: the tile's last element; of half 0: row 63.
    REQUIRE((A::row(127, A::values - 1) == A::rows - 1 && A::col(127, A::values - 1) == A::cols - 1));
    REQUIRE((A::row(127, A::values_per_half - 1) == 63 && A::col(127, A::values_per_half - 1) == A::cols - 1));
  });
}

TEST_CASE("WgmmaAccum: f16 accumulators hold d(2r) in the low half of register r", "[tile][sm90][wgmma_accum]") {
  using A = tile::WgmmaAccum<half_t, 64, 2>;
  A f{};
  f.regs[1][3] = 0xBBBBAAAAu;
  REQUIRE(f.get(1, 6).bits() == 0xAAAA);
  REQUIRE(f.get(1, 7).bits() == 0xBBBB);
  f.set(1, 7, half_t(1.0f));  // 0x3C00 into the high half, the low half kept
  REQUIRE(f.regs[1][3] == 0x3C00AAAAu);
  f.set(0, 0, half_t(-2.0f));  // 0xC000
  REQUIRE(f.regs[0][0] == 0x0000C000u);
  REQUIRE(f.get_float(0, 0) == -2.0f);
  REQUIRE(f.get_float(1, 7) == 1.0f);
}

TEST_CASE("WgmmaAccum: for_each and transform see the map's coordinates", "[tile][sm90][wgmma_accum]") {
  std::mt19937 rng(20240611);
  for_configs([&](auto tag) {
    using A = typename decltype(tag)::type;
    using Acc = typename A::value_type;
    INFO(acc_name<A>() << " N=" << A::cols << " MHalves=" << A::m_halves);
    Matrix const m = random_matrix(A::rows, A::cols, rng);
    std::vector<A> frags = scatter<A>(m);
    std::vector<int> hits(std::size_t(A::rows * A::cols), 0);
    for (int t = 0; t < 128; ++t) {
      int n = 0;
      tile::for_each(static_cast<A const&>(frags[t]), t, [&](Acc x, int row, int col) {
        REQUIRE(row == A::row(t, n));
        REQUIRE(col == A::col(t, n));
        REQUIRE(float(x) == m(row, col));
        ++hits[std::size_t(row * A::cols + col)];
        ++n;
      });
      REQUIRE(n == A::values);
      // in place: value = row + 2 col (exact in half)
      tile::for_each(frags[t], t, [&](Acc& x, int row, int col) { x = Acc(float(row + 2 * col)); });
      for (int v = 0; v < A::values; ++v)
        REQUIRE(frags[t].get_float(v / A::values_per_half, v % A::values_per_half) == float(A::row(t, v) + 2 * A::col(t, v)));
      // value = f(value, row, col), called unqualified with an unsigned thread index (as
      // threadIdx.x): ADL must pick it over core's tuple transform
      transform(frags[t], unsigned(t), [](Acc x, int row, int col) { return float(x) - float(row) + float(col); });
      for (int v = 0; v < A::values; ++v)
        REQUIRE(frags[t].get_float(v / A::values_per_half, v % A::values_per_half) == float(3 * A::col(t, v)));
      // value = f(value, local row)
      tile::transform_rows(frags[t], [](Acc, int r) { return float(r); });
      for (int v = 0; v < A::values; ++v)
        REQUIRE(frags[t].get_float(v / A::values_per_half, v % A::values_per_half) == float(A::local_row_of(v)));
    }
    for (int h : hits) REQUIRE(h == 1);
  });
}

TEST_CASE("WgmmaAccum: row max and row sum over an emulated warpgroup", "[tile][sm90][wgmma_accum]") {
  std::mt19937 rng(7);
  for_configs([&](auto tag) {
    using A = typename decltype(tag)::type;
    constexpr int R = A::rows_per_thread;
    INFO(acc_name<A>() << " N=" << A::cols << " MHalves=" << A::m_halves);
    Matrix const m = random_matrix(A::rows, A::cols, rng);
    std::vector<A> const frags = scatter<A>(m);

    std::vector<tile::RowValues<A::m_halves>> max(128), sum(128), partial(128);
    Warpgroup wg;
    wg.run([&](int t, Warpgroup::Shfl shfl) {
      partial[t] = tile::thread_row_reduce(frags[t], 0.0f, tile::SumOp{});
      max[t] = tile::row_max(frags[t], shfl);
      sum[t] = tile::row_sum(frags[t], shfl);
    });

    for (int t = 0; t < 128; ++t) {
      // two steps (xor 1, then xor 2) per reduction, every row's shuffle in each
      std::vector<int> expected;
      for (int reduction = 0; reduction < 2; ++reduction)
        for (int mask : {1, 2})
          for (int r = 0; r < R; ++r) expected.push_back(mask);
      REQUIRE(wg.masks(t) == expected);
      for (int r = 0; r < R; ++r) {
        int const row = A::local_row(t, r);
        float true_max = m(row, 0), true_sum = 0.0f, thread_sum = 0.0f;
        for (int c = 0; c < A::cols; ++c) {
          true_max = m(row, c) > true_max ? m(row, c) : true_max;
          true_sum += m(row, c);
        }
        for (int v = 0; v < A::values; ++v)
          if (A::local_row_of(v) == r) thread_sum += m(A::row(t, v), A::col(t, v));
        INFO("thread " << t << " local row " << r << " = row " << row);
        REQUIRE(max[t][r] == true_max);
        REQUIRE(sum[t][r] == true_sum);
        REQUIRE(partial[t][r] == thread_sum);
      }
    }
  });
}

TEST_CASE("WgmmaAccum: to_a_operand gives the PTX ISA's wgmma A fragment of the rounded accumulators",
          "[tile][sm90][wgmma_accum]") {
  std::mt19937 rng(99);
  for_configs([&](auto tag) {
    using A = typename decltype(tag)::type;
    using Acc = typename A::value_type;
    if constexpr (A::cols % 16 == 0) {
      auto check = [&](auto out_tag) {
        using T = typename decltype(out_tag)::type;
        INFO(acc_name<A>() << " N=" << A::cols << " MHalves=" << A::m_halves << " to "
                           << (std::is_same_v<T, half_t> ? "f16" : "bf16"));
        // accumulators of full float precision (rounded to half for f16 accumulators)
        std::uniform_real_distribution<float> d(-4.0f, 4.0f);
        Matrix m(A::rows, A::cols);
        for (auto& x : m.v) x = float(Acc(d(rng)));
        std::vector<A> const frags = scatter<A>(m);
        constexpr int k_steps = A::cols / 16;
        std::vector<int> hits(std::size_t(A::rows * A::cols), 0);
        for (int t = 0; t < 128; ++t) {
          auto const a = tile::to_a_operand<T>(frags[t]);
          STATIC_REQUIRE(std::is_same_v<decltype(a.regs[0][0]), std::uint32_t const(&)[4]>);
          STATIC_REQUIRE(decltype(a)::k_steps == k_steps);
          for (int mh = 0; mh < A::m_halves; ++mh)
            for (int s = 0; s < k_steps; ++s)
              for (int i = 0; i < 8; ++i) {  // element a_i: register i / 2, low half for even i
                int const row = 64 * mh + Ptx::a_row(t, i), k = 16 * s + Ptx::a_k(t, i);
                auto const bits = std::uint16_t(a.regs[mh][s][i / 2] >> (16 * (i % 2)));
                REQUIRE(bits == T(m(row, k)).bits());
                REQUIRE(decltype(a)::row(t, mh, i / 2) == row);
                REQUIRE(decltype(a)::k(t, s, i / 2, i % 2) == k);
                ++hits[std::size_t(row * A::cols + k)];
              }
        }
        for (int h : hits) REQUIRE(h == 1);
      };
      check(Tag<bfloat16_t>{});
      check(Tag<half_t>{});
    }
  });
}

TEST_CASE("WgmmaAccum: to_a_operand rounds to nearest even and copies f16 to f16", "[tile][sm90][wgmma_accum]") {
  tile::WgmmaAccum<float, 16> f{};
  f.regs[0][0] = 1.00390625f;  // 1 + 2^-8: halfway between bf16 1 and 1 + 2^-7, to even: 1 (0x3F80)
  f.regs[0][1] = 1.01171875f;  // 1 + 3 * 2^-8: halfway, to even: 1 + 2^-6 (0x3F82)
  f.regs[0][2] = -3.0f;        // 0xC040
  REQUIRE(tile::to_a_operand<bfloat16_t>(f).regs[0][0][0] == 0x3F823F80u);
  REQUIRE((tile::to_a_operand<bfloat16_t>(f).regs[0][0][1] & 0xFFFFu) == 0xC040u);

  tile::WgmmaAccum<half_t, 32, 2> h{};
  for (int mh = 0; mh < 2; ++mh)
    for (int r = 0; r < h.regs_per_half; ++r) h.regs[mh][r] = 0x3C000000u + std::uint32_t(16 * mh + r);
  auto const a = tile::to_a_operand<half_t>(h);
  for (int mh = 0; mh < 2; ++mh)
    for (int s = 0; s < 2; ++s)
      for (int r = 0; r < 4; ++r) REQUIRE(a.regs[mh][s][r] == h.regs[mh][4 * s + r]);
}
