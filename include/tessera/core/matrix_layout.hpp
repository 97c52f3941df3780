// Tags for the storage order of a matrix operand.
//   RowMajor:    element (r, c) at r * ld + c  (BLAS "T" for A, "N" for B^T)
//   ColumnMajor: element (r, c) at c * ld + r
#pragma once

#include <type_traits>

namespace tessera {

struct RowMajor {
  static constexpr bool row_major = true;
};
struct ColumnMajor {
  static constexpr bool row_major = false;
};
using ColMajor = ColumnMajor;

template <class T>
inline constexpr bool is_matrix_layout_v = std::is_same_v<T, RowMajor> || std::is_same_v<T, ColumnMajor>;

}  // namespace tessera
