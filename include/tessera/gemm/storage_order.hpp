// The order of D (and of the epilogue's matrix operands) in memory, as a run-time value.
#pragma once

namespace tessera::gemm {

enum class StorageOrder { kRowMajor, kColumnMajor };

}  // namespace tessera::gemm
