// How the sm90 GEMM's TMA loads of an operand ask L2 to keep its lines (Arguments::l2_hint_a / _b).
//
//   args.l2_hint_b = gemm::L2Hint::kEvictFirst;   // B is read once: let its lines go first
//
// kAuto (the default) picks evict-first for an operand that the GEMM reads once: its partner
// dimension is a single tile (a decode GEMM's weights, N x K with M no larger than the tile) and
// it is not shared by the entries of a batch. Its lines then make room for its own next lines
// instead of pushing out what L2 holds for other kernels (dirty lines included, whose write-back
// would share the DRAM bandwidth the stream needs). Everything else is loaded without a hint.
#pragma once

#include <cstdint>

namespace tessera::gemm {

enum class L2Hint : std::uint8_t { kAuto, kNormal, kEvictFirst, kEvictLast };

// `hint` with kAuto resolved, for an operand whose partner dimension has `partner_tiles` tiles,
// in a batch of `batch_count` entries `batch_stride` elements apart (0: one operand for all).
constexpr L2Hint resolve_l2_hint(L2Hint hint, std::int64_t partner_tiles, int batch_count, std::int64_t batch_stride) {
  if (hint != L2Hint::kAuto) return hint;
  bool const read_once = partner_tiles == 1 && (batch_count == 1 || batch_stride != 0);
  return read_once ? L2Hint::kEvictFirst : L2Hint::kNormal;
}

}  // namespace tessera::gemm
