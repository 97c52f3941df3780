// tuning::Registry<Kernel>: the profiler's type-erased kernels of one operation, in the order they
// were added, found by name. GemmRegistry (tuning/gemm_registry.hpp) and ConvRegistry
// (tuning/conv_registry.hpp) are its instances; a Kernel has a `name`.
//
//   tuning::ConvRegistry registry;
//   tuning::register_conv<spec>(registry);          // each generated translation unit
//   if (auto const* k = registry.find("sm90_bf16_fprop_128x128x64_2wg_coop_s6")) ...
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace tessera::tuning {

template <class Kernel>
class Registry {
 public:
  void add(Kernel k) { kernels_.push_back(std::move(k)); }
  std::vector<Kernel> const& kernels() const { return kernels_; }
  Kernel const* find(std::string_view name) const {
    for (auto const& k : kernels_)
      if (k.name == name) return &k;
    return nullptr;
  }

 private:
  std::vector<Kernel> kernels_;
};

}  // namespace tessera::tuning
