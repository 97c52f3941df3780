// What the sm90 kernel asks of its operand loader beyond the contract of gemm/sm90/tiled_loader.hpp,
// with the defaults of a TMA loader (one producer thread, every byte by TMA). A loader that also
// writes stages with cp.async (a convolution's gather loader) declares
//   static constexpr int producer_threads = 128;       // the producer warpgroup's threads that load:
//       // each walks the same k-tiles, and the loads functor is called in each; thread 0 announces
//       // the TMA bytes, every thread arrives (cp.async.mbarrier.arrive.noinc) as its copies land
//   static int tma_bytes(Params const&);               // the bytes of a stage that TMA brings
//   static constexpr int producer_registers = 56;      // setmaxnreg for the producer (multiple of 8)
// and the consumers then fence the async proxy after each wait (pipeline::TmaPipeline's GenericWrites).
// tessera-header: cuda-only
#pragma once

#include "tessera/gemm/config_check.hpp"
#include "tessera/gemm/sm90/stage.hpp"

namespace tessera::gemm::sm90 {

template <class Cfg, class Loader>
struct LoaderTraits {
  static constexpr int producer_threads = [] {
    if constexpr (requires { Loader::producer_threads; }) return int(Loader::producer_threads);
    else return 1;
  }();
  static_assert(producer_threads >= 1 && producer_threads <= 128, "gemm::sm90: a loader's producer threads are 1 to 128 (one warpgroup)");
  static constexpr bool generic_writes = producer_threads > 1;
  static constexpr int producer_registers = [] {
    if constexpr (requires { Loader::producer_registers; }) return int(Loader::producer_registers);
    else return kSm90ProducerRegisters;
  }();
  // The consumers take what the producer leaves of the block's pool (168 x 384 registers at
  // launch for two consumers), at most the GEMM's 232.
  static constexpr int consumer_registers = Cfg::consumer_warpgroups == 1
                                                ? sm90_consumer_registers(1)
                                                : (sm90_consumer_registers(2) < (504 - producer_registers) / 2 / 8 * 8
                                                       ? sm90_consumer_registers(2)
                                                       : (504 - producer_registers) / 2 / 8 * 8);

  template <class Params>
  TESSERA_DEVICE static int tma_bytes(Params const& p) {
    if constexpr (requires { Loader::tma_bytes(p); }) return Loader::tma_bytes(p);
    else return StageLayout<Cfg>::bytes;
  }
};

}  // namespace tessera::gemm::sm90
