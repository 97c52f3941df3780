// The sm_80 GEMM kernel: D = epilogue(A * B), one block per work item (an output tile of one
// batch entry and one K slice), assembled from pieces (docs/gemm.md, "How the sm80 kernel is built"):
//
//   the operand loader   Loader (gemm/sm80/tiled_loader.hpp; a convolution's gather loader): the
//                        cp.async copies of a k-tile of A and B into a stage
//   the stage layout     StageLayout (gemm/sm80/stage.hpp): A's stages, then B's, swizzled
//   the mainloop         Mainloop (gemm/sm80/mainloop.hpp): a multistage cp.async pipeline, all
//                        stages in flight; ldmatrix fragments and mma.sync into the accumulators
//   the epilogue         Epilogue (gemm/sm80/epilogue.hpp): each warp stages its accumulators
//                        through the freed stages and runs the chain on quads of D read back from
//                        them, stored as vectors (split-K: each slice writes floats to a workspace,
//                        which a second kernel sums and runs the chain on)
//   the work item        WorkItem, work_item (gemm/data_parallel.hpp): the grouped raster
// tessera-header: cuda-only
#pragma once

#include "tessera/gemm/data_parallel.hpp"
#include "tessera/gemm/sm80/epilogue.hpp"
#include "tessera/gemm/sm80/mainloop.hpp"
#include "tessera/gemm/sm80/stage.hpp"
#include "tessera/gemm/sm80/tiled_loader.hpp"

namespace tessera::gemm::sm80 {

// Everything a launch needs, passed by value (gemm/data_parallel.hpp).
template <class Cfg>
using Params = DataParallelParams<Cfg>;

// Loader: the operand loader (its contract: gemm/sm80/tiled_loader.hpp).
template <class Cfg, class Loader = TiledLoader<Cfg>>
struct Kernel {
  using Stage = StageLayout<Cfg>;
  using Main = Mainloop<Cfg>;
  using Epi = Epilogue<Cfg>;
  using Acc = typename Cfg::ElementAccumulator;
  static constexpr int smem_bytes = Stage::smem_bytes;

  // One block per work item (grid x = tiles x batch x K slices, in the raster's order). The
  // loader's Params are the GEMM's (Params<Cfg>) or extend them (a convolution's problem).
  TESSERA_DEVICE static void run(typename Loader::Params const& p, char* smem) {
    int const tid = threadIdx.x;
    WorkItem const w = work_item(p, int(blockIdx.x));
    Loader loader(p, w, tid);
    auto load = [&](int stage, int kt) { loader(p, smem, stage, kt); };
    Acc acc[Main::Tile::c_values];
    Main::run(load, loader.k_tiles, acc, smem, tid);  // leaves the stages free for the epilogue
    Epi::store(p, acc, w, tid, smem);
  }
};

// VecA, VecB: the bytes of one copy of A and of B (16 when aligned; gemm.hpp chooses).
template <class Cfg, int VecA, int VecB>
__global__ void __launch_bounds__(Cfg::threads) gemm_kernel(Params<Cfg> const p) {
  extern __shared__ __align__(1024) char smem[];  // XOR addressing needs the tile bases aligned
  Kernel<Cfg, TiledLoader<Cfg, VecA, VecB>>::run(p, smem);
}

// The kernel with another operand loader (a convolution's gather loader): its parameters are
// the loader's.
template <class Cfg, class Loader>
__global__ void __launch_bounds__(Cfg::threads) loader_kernel(typename Loader::Params const p) {
  extern __shared__ __align__(1024) char smem[];
  Kernel<Cfg, Loader>::run(p, smem);
}

}  // namespace tessera::gemm::sm80
