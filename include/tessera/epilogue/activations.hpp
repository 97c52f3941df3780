// Elementwise activation stages. Each is exact to float rounding of its formula; the GELU
// variants follow the two definitions frameworks use (erf, and the tanh approximation).
#pragma once

#include <cmath>

#include "tessera/core/config.hpp"
#include "tessera/epilogue/chain.hpp"

namespace tessera::epilogue {

namespace detail {
TESSERA_HD float exp_f(float x) {
#if TESSERA_DEVICE_PASS
  return __expf(x);
#else
  return std::exp(x);
#endif
}
// On sm_75+ devices the hardware approximation (tanh.approx.f32: one instruction, relative error
// about 2^-11, below bf16/half output rounding); elsewhere the accurate function.
TESSERA_HD float tanh_f(float x) {
#if TESSERA_DEVICE_PASS && defined(TESSERA_CUDA) && TESSERA_CUDA_ARCH >= 750
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#elif TESSERA_DEVICE_PASS
  return tanhf(x);
#else
  return std::tanh(x);
#endif
}
TESSERA_HD float erf_f(float x) {
#if TESSERA_DEVICE_PASS
  return erff(x);
#else
  return std::erf(x);
#endif
}
}  // namespace detail

struct Relu {
  TESSERA_HD float operator()(float x, Coord const&) const { return x > 0.0f ? x : 0.0f; }
};

// x * Phi(x) with the normal CDF Phi through erf.
struct GeluErf {
  TESSERA_HD float operator()(float x, Coord const&) const {
    return 0.5f * x * (1.0f + detail::erf_f(x * 0.70710678118654752f));
  }
};

// The tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), evaluated as
// h + h tanh(x (c0 + c1 x^2)) with h = x / 2: five multiply-adds and one tanh (it runs after the
// mainloop, where nothing hides its cost).
struct GeluTanh {
  TESSERA_HD float operator()(float x, Coord const&) const {
    constexpr float c0 = 0.79788456080286536f, c1 = 0.79788456080286536f * 0.044715f;
    float const inner = x * (c0 + c1 * (x * x));
    float const h = 0.5f * x;
    return h + h * detail::tanh_f(inner);
  }
};

struct Sigmoid {
  TESSERA_HD float operator()(float x, Coord const&) const { return 1.0f / (1.0f + detail::exp_f(-x)); }
};

// x * sigmoid(x) (also called swish).
struct Silu {
  TESSERA_HD float operator()(float x, Coord const&) const { return x / (1.0f + detail::exp_f(-x)); }
};

// min(max(x, lo), hi).
struct Clamp {
  float lo;
  float hi;
  TESSERA_HD float operator()(float x, Coord const&) const { return x < lo ? lo : (x > hi ? hi : x); }
};

// An activation chosen at run time: one kernel for all of them (the profiler's fused epilogue),
// at the cost of a uniform switch per element. kClamp uses lo and hi.
enum class Activation { kIdentity, kRelu, kGeluTanh, kGeluErf, kSigmoid, kSilu, kClamp };

struct AnyActivation {
  Activation kind = Activation::kIdentity;
  float lo = 0.0f, hi = 0.0f;
  TESSERA_HD float operator()(float x, Coord const& c) const {
    switch (kind) {
      case Activation::kRelu: return Relu{}(x, c);
      case Activation::kGeluTanh: return GeluTanh{}(x, c);
      case Activation::kGeluErf: return GeluErf{}(x, c);
      case Activation::kSigmoid: return Sigmoid{}(x, c);
      case Activation::kSilu: return Silu{}(x, c);
      case Activation::kClamp: return Clamp{lo, hi}(x, c);
      default: return x;
    }
  }
};

}  // namespace tessera::epilogue
