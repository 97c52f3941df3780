// What the sm90 kernel may take from its operand loader beyond the contract of
// gemm/sm90/tiled_loader.hpp: the producer's share of the block's registers.
//   static constexpr int producer_registers = 56;   // setmaxnreg for the producer warpgroup
//       // (a multiple of 8; default the GEMM's kSm90ProducerRegisters = 40). A loader whose
//       // producer thread keeps more state than the GEMM's (a convolution's im2col boxes) asks
//       // for more so that ptxas need not spill; the consumers get what is left of the block's
//       // pool (168 x 384 registers at launch for two consumers), at most the GEMM's 232.
// tessera-header: cuda-only
#pragma once

#include "tessera/gemm/config_check.hpp"

namespace tessera::gemm::sm90 {

template <class Cfg, class Loader>
struct LoaderTraits {
  static constexpr int producer_registers = [] {
    if constexpr (requires { Loader::producer_registers; }) return int(Loader::producer_registers);
    else return kSm90ProducerRegisters;
  }();
  static_assert(producer_registers % 8 == 0 && producer_registers >= 24 && producer_registers <= 128,
                "gemm::sm90: a loader's producer_registers must be a multiple of 8 from 24 to 128");
  static constexpr int consumer_registers =
      Cfg::consumer_warpgroups == 1 ? sm90_consumer_registers(1)
                                    : (sm90_consumer_registers(2) < (504 - producer_registers) / 2 / 8 * 8 ? sm90_consumer_registers(2)
                                                                                                           : (504 - producer_registers) / 2 / 8 * 8);
};

}  // namespace tessera::gemm::sm90
