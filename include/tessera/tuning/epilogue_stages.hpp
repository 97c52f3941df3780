// The epilogues the profiler offers, as plain values: which of the shipped stages run, always in
// the order of the fused chain (alpha * acc + beta * C, + bias, * scale + shift, an activation,
// + residual), and their names on the command line and in reports.
//
//   tuning::EpilogueStages e;
//   if (Status s = tuning::parse_epilogue("bias_gelu", e); !s) ... s.message() lists the stages
//   tuning::epilogue_name(e) == "bias_gelu"
#pragma once

#include <string>
#include <string_view>

#include "tessera/core/status.hpp"
#include "tessera/epilogue/activations.hpp"

namespace tessera::tuning {

struct EpilogueStages {
  bool linear = false;       // alpha * acc + beta * C
  bool bias = false;         // + bias[col]
  bool scale_shift = false;  // * scale[col] + shift[col]
  epilogue::Activation activation = epilogue::Activation::kIdentity;
  bool residual = false;     // + R(row, col)

  constexpr bool any() const {
    return linear || bias || scale_shift || residual || activation != epilogue::Activation::kIdentity;
  }
  friend constexpr bool operator==(EpilogueStages const&, EpilogueStages const&) = default;
};

// Static chains a configuration may also be built with (TESSERA_PROFILER_STATIC_EPILOGUES): a
// problem whose stages are exactly one of these runs a kernel compiled for it, at the speed the
// user's own chain will have; any other runs the run-time chain (tuning/gemm_registry.hpp).
enum StaticEpilogue : unsigned {
  kStaticBias = 1u << 0,      // bias
  kStaticBiasRelu = 1u << 1,  // bias_relu
  kStaticBiasGelu = 1u << 2,  // bias_gelu (GeluTanh)
  kStaticBiasSilu = 1u << 3,  // bias_silu
};

// The StaticEpilogue of exactly these stages (0: none of them).
constexpr unsigned static_epilogue_of(EpilogueStages const& e) {
  if (!e.bias || e.linear || e.scale_shift || e.residual) return 0;
  switch (e.activation) {
    case epilogue::Activation::kIdentity: return kStaticBias;
    case epilogue::Activation::kRelu: return kStaticBiasRelu;
    case epilogue::Activation::kGeluTanh: return kStaticBiasGelu;
    case epilogue::Activation::kSilu: return kStaticBiasSilu;
    default: return 0;
  }
}

namespace detail {
struct StageName {
  char const* name;
  epilogue::Activation activation;  // kIdentity: not an activation
};
// The stage tokens, the activations by their Activation.
inline constexpr StageName kStageNames[] = {
    {"linear", epilogue::Activation::kIdentity},    {"bias", epilogue::Activation::kIdentity},
    {"scale_shift", epilogue::Activation::kIdentity}, {"relu", epilogue::Activation::kRelu},
    {"gelu", epilogue::Activation::kGeluTanh},      {"gelu_erf", epilogue::Activation::kGeluErf},
    {"sigmoid", epilogue::Activation::kSigmoid},    {"silu", epilogue::Activation::kSilu},
    {"clamp", epilogue::Activation::kClamp},        {"residual", epilogue::Activation::kIdentity}};
}  // namespace detail

// "none, linear, bias, scale_shift, relu, gelu, gelu_erf, sigmoid, silu, clamp, residual".
inline std::string epilogue_stage_list() {
  std::string s = "none";
  for (auto const& t : detail::kStageNames) s += std::string(", ") + t.name;
  return s;
}

// The canonical name: the stages in chain order joined by '_' ("none" for none).
inline std::string epilogue_name(EpilogueStages const& e) {
  std::string s;
  auto add = [&s](char const* t) { s += (s.empty() ? "" : "_") + std::string(t); };
  if (e.linear) add("linear");
  if (e.bias) add("bias");
  if (e.scale_shift) add("scale_shift");
  for (auto const& t : detail::kStageNames)
    if (t.activation != epilogue::Activation::kIdentity && t.activation == e.activation) add(t.name);
  if (e.residual) add("residual");
  return s.empty() ? "none" : s;
}

// Stage names joined by '_' or '+' ("bias_gelu", "linear+bias+relu+residual"; "none"), in any
// order: they run in the chain's. At most one activation, each stage once.
inline Status parse_epilogue(std::string_view text, EpilogueStages& out) {
  auto const fail = [&](std::string const& why) {
    return Status::invalid_argument("epilogue '" + std::string(text) + "': " + why + "; the stages are " +
                                    epilogue_stage_list() + ", joined by _ or + (e.g. bias_gelu)");
  };
  EpilogueStages e;
  if (text == "none") {
    out = e;
    return Status::success();
  }
  std::size_t i = 0;
  while (i < text.size()) {
    // the longest stage name at i that ends at a separator or the end
    std::string_view best;
    epilogue::Activation act = epilogue::Activation::kIdentity;
    for (auto const& t : detail::kStageNames) {
      std::string_view const n = t.name;
      if (text.substr(i, n.size()) == n && (i + n.size() == text.size() || text[i + n.size()] == '_' || text[i + n.size()] == '+') &&
          n.size() > best.size()) {
        best = n;
        act = t.activation;
      }
    }
    if (best.empty()) {
      std::size_t end = text.find_first_of("_+", i);
      return fail("unknown stage '" + std::string(text.substr(i, end == std::string_view::npos ? end : end - i)) + "'");
    }
    bool* flag = best == "linear" ? &e.linear : best == "bias" ? &e.bias : best == "scale_shift" ? &e.scale_shift
                 : best == "residual"                                                         ? &e.residual
                                                                                              : nullptr;
    if (flag != nullptr) {
      if (*flag) return fail("'" + std::string(best) + "' appears twice");
      *flag = true;
    } else {
      if (e.activation != epilogue::Activation::kIdentity) return fail("two activations; a chain has at most one");
      e.activation = act;
    }
    i += best.size();
    if (i < text.size()) {
      ++i;  // the separator
      if (i == text.size()) return fail("it ends with a separator");
    }
  }
  if (!e.any()) return fail("no stage named");
  out = e;
  return Status::success();
}

}  // namespace tessera::tuning
