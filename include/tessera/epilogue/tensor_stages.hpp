// Stages that read tensors: alpha * acc + beta * C, bias and per-channel scale/shift vectors,
// and a residual added from a second tensor. Pointers are device pointers; a matrix operand is
// addressed as ptr[batch * batch_stride + row * row_stride + col * col_stride], so row- and
// column-major (and broadcast, with a zero stride) are one code path.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/core/config.hpp"
#include "tessera/epilogue/chain.hpp"

namespace tessera::epilogue {

namespace detail {
// Epilogue operands are read-only for the kernel's lifetime: on the device they are loaded through
// the non-coherent path (ld.global.nc), which also lets the compiler keep them apart from D's stores.
template <class T>
TESSERA_HD float load_as_float(T const* p, std::int64_t i) {
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA)
  if constexpr (std::is_arithmetic_v<T>) {
    return float(__ldg(p + i));
  } else {
    auto const bits = __ldg(reinterpret_cast<typename T::storage_type const*>(p) + i);
    return T::from_bits(bits).to_float();
  }
#else
  if constexpr (std::is_arithmetic_v<T>) {
    return float(p[i]);
  } else {
    return p[i].to_float();
  }
#endif
}
}  // namespace detail

// A matrix operand of the epilogue (C for beta, or a residual).
template <class T>
struct MatrixRef {
  T const* ptr = nullptr;
  std::int64_t row_stride = 0;
  std::int64_t col_stride = 0;
  std::int64_t batch_stride = 0;
  TESSERA_HD float operator[](Coord const& c) const {
    return detail::load_as_float(ptr, c.batch * batch_stride + c.row * row_stride + c.col * col_stride);
  }
  // Row-major with leading dimension ld.
  static MatrixRef row_major(T const* p, std::int64_t ld, std::int64_t batch_stride = 0) { return {p, ld, 1, batch_stride}; }
  static MatrixRef column_major(T const* p, std::int64_t ld, std::int64_t batch_stride = 0) {
    return {p, 1, ld, batch_stride};
  }
};

// alpha * acc + beta * C. C is not read when beta == 0 (it may then be null).
template <class T = float>
struct LinearCombination {
  float alpha = 1.0f;
  float beta = 0.0f;
  MatrixRef<T> c{};
  TESSERA_HD float operator()(float x, Coord const& at) const {
    float y = alpha * x;
    if (beta != 0.0f) y += beta * c[at];
    return y;
  }

  // C is a source matrix (epilogue/chain.hpp), read only where beta is not 0.
  using Source = T;
  static constexpr int source_matrices = 1;
  TESSERA_HD MatrixRef<T> source() const {
    MatrixRef<T> r = c;
    if (beta == 0.0f) r.ptr = nullptr;
    return r;
  }
  TESSERA_HD float operator()(float x, Coord const&, SourceValue v) const {
    float y = alpha * x;
    if (beta != 0.0f) y += beta * v.value;
    return y;
  }
};

// Which index of a vector an element uses: its row (one value per output row, e.g. a per-channel
// bias of a layer whose channels are the rows) or its column.
struct PerRow {
  TESSERA_HD static int index(Coord const& c) { return c.row; }
};
struct PerColumn {
  TESSERA_HD static int index(Coord const& c) { return c.col; }
};

template <class Broadcast, class T = float>
struct Bias {
  static_assert(std::is_same_v<Broadcast, PerRow> || std::is_same_v<Broadcast, PerColumn>,
                "epilogue::Bias: broadcast along PerRow or PerColumn; use one of those tags");
  T const* ptr = nullptr;
  TESSERA_HD float operator()(float x, Coord const& c) const { return x + detail::load_as_float(ptr, Broadcast::index(c)); }

  // A per-column bias is a column vector (epilogue/chain.hpp).
  static constexpr int column_vectors = std::is_same_v<Broadcast, PerColumn> ? 1 : 0;
  TESSERA_HD float column_value(int, int col) const
    requires(column_vectors > 0)
  {
    return detail::load_as_float(ptr, col);
  }
  TESSERA_HD float operator()(float x, Coord const&, ColumnValues v) const
    requires(column_vectors > 0)
  {
    return x + v[0];
  }
};

// x * scale[i] + shift[i] (a folded batch norm, or a dequantization).
template <class Broadcast, class T = float>
struct ScaleShift {
  static_assert(std::is_same_v<Broadcast, PerRow> || std::is_same_v<Broadcast, PerColumn>,
                "epilogue::ScaleShift: broadcast along PerRow or PerColumn; use one of those tags");
  T const* scale = nullptr;
  T const* shift = nullptr;
  TESSERA_HD float operator()(float x, Coord const& c) const {
    int const i = Broadcast::index(c);
    return x * detail::load_as_float(scale, i) + detail::load_as_float(shift, i);
  }

  // Per column, scale and shift are column vectors 0 and 1 (epilogue/chain.hpp).
  static constexpr int column_vectors = std::is_same_v<Broadcast, PerColumn> ? 2 : 0;
  TESSERA_HD float column_value(int j, int col) const
    requires(column_vectors > 0)
  {
    return detail::load_as_float(j == 0 ? scale : shift, col);
  }
  TESSERA_HD float operator()(float x, Coord const&, ColumnValues v) const
    requires(column_vectors > 0)
  {
    return x * v[0] + v[1];
  }
};

// x + R(row, col): a residual connection from a second tensor of the output's shape.
template <class T = float>
struct ResidualAdd {
  MatrixRef<T> residual{};
  TESSERA_HD float operator()(float x, Coord const& c) const { return x + residual[c]; }

  // R is a source matrix (epilogue/chain.hpp).
  using Source = T;
  static constexpr int source_matrices = 1;
  TESSERA_HD MatrixRef<T> source() const { return residual; }
  TESSERA_HD float operator()(float x, Coord const&, SourceValue v) const { return x + v.value; }
};

}  // namespace tessera::epilogue
