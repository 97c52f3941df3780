// A host-emulated warp for MMA atoms: scatter matrices into per-thread fragments by the atom's
// thread-value layouts, compute each thread's D values from the fragments the instruction would
// read, gather D back.
#pragma once

#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <vector>

#include "tessera/core/layout.hpp"

namespace tessera::test {

// A column-major M x N matrix of doubles.
struct Matrix {
  int rows, cols;
  std::vector<double> v;
  Matrix(int r, int c) : rows(r), cols(c), v(std::size_t(r) * c) {}
  double& operator()(int r, int c) { return v[std::size_t(r) + std::size_t(rows) * c]; }
  double operator()(int r, int c) const { return v[std::size_t(r) + std::size_t(rows) * c]; }
};

inline Matrix random_matrix(int r, int c, std::mt19937& rng, int lo = -8, int hi = 8) {
  std::uniform_int_distribution<int> d(lo, hi);
  Matrix m(r, c);
  for (auto& x : m.v) {
    do { x = d(rng); } while (x == 0);  // small non-zero integers: every product is exact in double
  }
  return m;
}

// Fragments: frag[t][v] for `threads` threads and `values` values each.
using Fragments = std::vector<std::vector<double>>;

// Scatter: thread t, value v receives the element at index tv(t, v) of a column-major rows x cols
// matrix (index = row + rows * col).
template <class TV>
Fragments scatter(TV const& tv, Matrix const& m, int threads) {
  int const values = int(size(tv)) / threads;
  Fragments f(threads, std::vector<double>(values));
  for (int t = 0; t < threads; ++t)
    for (int v = 0; v < values; ++v) {
      int const idx = int(tv(t, v));
      f[t][v] = m.v[idx];
    }
  return f;
}

// Where (thread, value) of each element of a rows x cols matrix is: the inverse of a TV layout.
template <class TV>
std::vector<std::pair<int, int>> owners(TV const& tv, int threads, int elements) {
  std::vector<std::pair<int, int>> o(elements, {-1, -1});
  int const values = int(size(tv)) / threads;
  for (int t = 0; t < threads; ++t)
    for (int v = 0; v < values; ++v) o[int(tv(t, v))] = {t, v};
  return o;
}

// D = A * B + C computed as the instruction does: each (thread, value) of D reads the row of A
// and the column of B from the fragments of the threads that hold them.
template <class Traits>
Matrix emulate_mma(Matrix const& a, Matrix const& b, Matrix const& c) {
  constexpr int M = Traits::M, N = Traits::N, K = Traits::K, T = Traits::threads;
  auto fa = scatter(Traits::a_layout(), a, T);
  // B is indexed n + N * k: scatter its transpose (N x K)
  Matrix bt(N, K);
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) bt(n, k) = b(k, n);
  auto fb = scatter(Traits::b_layout(), bt, T);
  auto fc = scatter(Traits::c_layout(), c, T);
  auto oa = owners(Traits::a_layout(), T, M * K);
  auto ob = owners(Traits::b_layout(), T, N * K);
  Fragments fd = fc;
  int const cvals = int(size(Traits::c_layout())) / T;
  for (int t = 0; t < T; ++t)
    for (int v = 0; v < cvals; ++v) {
      int const idx = int(Traits::c_layout()(t, v));
      int const m = idx % M, n = idx / M;
      double acc = fc[t][v];
      for (int k = 0; k < K; ++k) {
        auto [ta, va] = oa[m + M * k];
        auto [tb, vb] = ob[n + N * k];
        acc += fa[ta][va] * fb[tb][vb];
      }
      fd[t][v] = acc;
    }
  Matrix d(M, N);
  for (int t = 0; t < T; ++t)
    for (int v = 0; v < cvals; ++v) d.v[int(Traits::c_layout()(t, v))] = fd[t][v];
  return d;
}

// A thread-value layout maps its domain one-to-one onto [0, elements) (a Catch2 test's check).
template <class TV>
void require_bijection(TV const& tv, int elements) {
  REQUIRE(int(size(tv)) == elements);
  std::set<int> seen;
  for (int i = 0; i < elements; ++i) {
    int const x = int(tv(i));
    REQUIRE(x >= 0);
    REQUIRE(x < elements);
    seen.insert(x);
  }
  REQUIRE(int(seen.size()) == elements);
}

inline Matrix reference_mma(Matrix const& a, Matrix const& b, Matrix const& c) {
  Matrix d = c;
  for (int m = 0; m < a.rows; ++m)
    for (int n = 0; n < b.cols; ++n)
      for (int k = 0; k < a.cols; ++k) d(m, n) += a(m, k) * b(k, n);
  return d;
}

// What every MMA atom's layouts must satisfy, whatever its ISA: A, B and C are bijections onto
// their tiles, and the emulated warp (wavefront) computes the plain product of random matrices.
template <class Traits>
void require_atom_layouts(unsigned seed) {
  constexpr int M = Traits::M, N = Traits::N, K = Traits::K;
  STATIC_REQUIRE(is_static_layout_v<decltype(Traits::a_layout())>);
  require_bijection(Traits::a_layout(), M * K);
  require_bijection(Traits::b_layout(), N * K);
  require_bijection(Traits::c_layout(), M * N);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 4; ++trial) {
    auto ma = random_matrix(M, K, rng), mb = random_matrix(K, N, rng), mc = random_matrix(M, N, rng);
    REQUIRE(emulate_mma<Traits>(ma, mb, mc).v == reference_mma(ma, mb, mc).v);
  }
}

}  // namespace tessera::test
