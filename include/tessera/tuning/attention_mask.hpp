// The masks the profiler's attention kernels are built with (tuning/attention_registry.hpp's
// MaskChain; the space is tuning/attention_space.hpp): none, Causal<BottomRight> (FlashAttention's
// alignment), Causal<TopLeft> and SlidingWindow<BottomRight> (its bounds are run-time values). A
// value apart from the space, so that the profiler's options name it without the space's includes.
#pragma once

#include <cstdint>

namespace tessera::tuning {

enum class AttentionMask : std::uint8_t { kNone, kCausal, kCausalTopLeft, kWindow };

// "none", "causal", "causal_tl", "window": as kernel and table names spell them.
constexpr char const* attention_mask_name(AttentionMask m) {
  switch (m) {
    case AttentionMask::kNone: return "none";
    case AttentionMask::kCausal: return "causal";
    case AttentionMask::kCausalTopLeft: return "causal_tl";
    case AttentionMask::kWindow: return "window";
  }
  return "unknown";
}

}  // namespace tessera::tuning
