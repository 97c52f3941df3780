// The sm_90a GEMM kernel: D = epilogue(A * B) with TMA loads and wgmma, warp-specialized and
// persistent, assembled from pieces (docs/gemm.md, "How the kernel works"):
//
//   the operand loader   Loader (gemm/sm90/tiled_loader.hpp; a convolution's im2col loader)
//   the stage layout     StageLayout (gemm/sm90/stage.hpp): A's and B's tiles of a k-tile
//   the mainloop         Mainloop (gemm/sm90/mainloop.hpp): a consumer's wgmma into a tile::WgmmaAccum
//   split-K              SplitK (gemm/sm90/split_k.hpp)
//   the epilogue         Epilogue (gemm/sm90/epilogue.hpp) over the tile store (epilogue/sm90_tile_store.hpp)
//   the scheduler        WorkGrid, BlockWork (gemm/sm90/work.hpp)
//   the roles            pipeline/warp_specialized.hpp, pipeline/turns.hpp, pipeline/tma_pipeline.hpp
//
// Blocks (one per multiprocessor) walk the work units blockIdx.x, blockIdx.x + gridDim.x, ... in
// the grouped raster's order; with clusters (Warpgroups<C, Schedule, ClusterShape<M, N>>) the
// grid's clusters walk cluster tiles of M x N output tiles, a block taking the tile of its rank,
// and a stage is full when every block's multicast part has landed and free when the consumers of
// every block that received it have released it.
//
// Warpgroup 0 is the producer: one thread walks the block's units and their k-tiles, and for each
// waits for a free stage of the ring, announces its bytes on the stage's `full` barrier and has
// the loader issue the copies; the other warps of the group give their registers away. The ring
// runs across units, so the next tile's first k-tiles arrive while the consumers run the epilogue.
//
// The consumers (Warpgroups<C, Schedule>):
//   Cooperative: every consumer works on every tile, 64 rows each; a stage is free once all C
//                have released it.
//   PingPong:    consumer c takes the block's units c, c + 2, ..., each a whole BM x BN tile, and
//                the two take turns on the tensor cores: one issues a tile's whole mainloop,
//                passes the turn and runs its epilogue while the other's mainloop runs.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "tessera/arch/sm90/cluster.hpp"
#include "tessera/arch/sm90/kernel_attributes.hpp"
#include "tessera/gemm/config_check.hpp"
#include "tessera/gemm/sm90/epilogue.hpp"
#include "tessera/gemm/sm90/loader_traits.hpp"
#include "tessera/gemm/sm90/mainloop.hpp"
#include "tessera/gemm/sm90/split_k.hpp"
#include "tessera/gemm/sm90/stage.hpp"
#include "tessera/gemm/sm90/tiled_loader.hpp"
#include "tessera/gemm/sm90/work.hpp"
#include "tessera/pipeline/tma_pipeline.hpp"
#include "tessera/pipeline/turns.hpp"
#include "tessera/pipeline/warp_specialized.hpp"

namespace tessera::gemm::sm90 {

// The kernel's parameters: each piece's own (built on the host by the piece's make()).
template <class Cfg, class Loader = TiledLoader<Cfg>>
struct Params {
  typename Loader::Params load;
  typename Epilogue<Cfg>::Params epilogue;
  typename SplitK<Cfg>::Params split;
  WorkGrid grid;
};

template <class Cfg, class Loader = TiledLoader<Cfg>>
struct Kernel {
  using Stage = StageLayout<Cfg>;
  using Main = Mainloop<Cfg>;
  using Epi = Epilogue<Cfg>;
  using Split = SplitK<Cfg>;
  using Accum = typename Main::Accum;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, Stages = Cfg::stages, Consumers = Cfg::consumer_warpgroups;
  static constexpr bool ping_pong = Cfg::ping_pong;
  static_assert(ping_pong ? Consumers == 2 : BM == 64 * Consumers, "gemm::sm90: the consumers must cover the tile's rows");
  static constexpr int ClusterM = Cfg::cluster_m, ClusterN = Cfg::cluster_n, ClusterSize = ClusterM * ClusterN;
  using Pipe = pipeline::TmaPipeline<Stages, ClusterSize>;

  // Shared memory: the ring's stages (at the 1024-byte aligned base, as the swizzle needs), each
  // consumer's staging buffers, the barriers (the ring's, then ping-pong's turns), and each
  // consumer's copy of the tile's column vectors where the Config stages them.
  struct SharedStorage {
    char stages[Stages][Stage::bytes];
    char staging[Consumers][Epi::Buffers][Epi::Store::buffer_bytes];
    std::uint64_t barriers[(Pipe::barrier_bytes + (ping_pong ? pipeline::Turns::barrier_bytes : 0)) / 8];
    float columns[Consumers * Epi::column_floats + 1];  // (+ 1: no array of size 0; not counted)
  };
  static constexpr int smem_bytes = int(offsetof(SharedStorage, columns)) + Consumers * Epi::column_floats * int(sizeof(float));
  static_assert(Consumers * Epi::column_floats * int(sizeof(float)) == Cfg::column_vector_bytes_sm90,
                "gemm::sm90: the column vectors' shared memory differs from the Config's");

  // Registers after reallocation: the producer gives up what the consumers take. setmaxnreg.inc
  // waits until the block's own pool (168 x 384 registers at launch for two consumers) has them, so
  // the split must fit that pool, not the 64K file: 40 + 2 x 232 does; 48 + 2 x 232 hangs.
  static constexpr int producer_registers = LoaderTraits<Cfg, Loader>::producer_registers;
  static constexpr int consumer_registers = LoaderTraits<Cfg, Loader>::consumer_registers;
  static_assert(128 * producer_registers + Consumers * 128 * consumer_registers <= (Consumers == 1 ? 65280 : 64512),
                "gemm::sm90: the register split exceeds the block's registers at launch (setmaxnreg would wait forever)");

  TESSERA_DEVICE static void run(Params<Cfg, Loader> const& p, SharedStorage& s) {
    int const tid = threadIdx.x;
    Pipe const pipe(s.barriers);
    pipeline::Turns const turns(s.barriers + 2 * Stages);
    int const rank = ClusterSize > 1 ? arch::sm90::cluster_ctarank() : 0;
    if (tid == 0) {
      Loader::prefetch(p.load);
      if constexpr (ping_pong) turns.init();
      pipe.init(ping_pong ? 1 : Consumers);  // a stage is read by every consumer, or by one in ping-pong
    }
    if constexpr (ClusterSize > 1) arch::sm90::cluster_sync();  // the cluster's barriers are initialized
    else __syncthreads();

    WorkGrid grid = p.grid;  // with the Config's cluster shape, known at compile time (its divisions fold)
    grid.cluster_m = ClusterM;
    grid.cluster_n = ClusterN;
    BlockWork const work{grid, grid.total(), int(gridDim.x) / ClusterSize, int(blockIdx.x) / ClusterSize, rank % ClusterM, rank / ClusterM};
    pipeline::run_roles<producer_registers, consumer_registers>(
        tid / 128, [&] { produce(p, s, tid, work, pipe); }, [&](int c) { consume(p, s, c, tid % 128, work, pipe, turns); });
    // No block of a cluster leaves while another may still write its shared memory or barriers.
    if constexpr (ClusterSize > 1) {
      __syncwarp();
      arch::sm90::cluster_sync();
    }
  }

  // The producer: thread 0 walks the block's units and their k-tiles over the ring of stages.
  TESSERA_DEVICE static void produce(Params<Cfg, Loader> const& p, SharedStorage& s, int tid, BlockWork const& work, Pipe const& pipe) {
    if (tid != 0) return;
    Loader::with_loads(p.load, work.rank_m, work.rank_n, [&](auto const& load) {
      int pos = 0;  // position in the ring over all of this block's k-tiles
      for (int w = work.first; w < work.total; w += work.stride) {
        WorkUnit const u = work.unit(w);
        for (int kt = u.kt0; kt < u.kt1; ++kt, ++pos) load(s.stages[pos % Stages], pipe.producer_acquire(pos, Stage::bytes), kt, u);
      }
    });
  }

  // Consumer c (thread: 0..127 in it): mainloop, split-K and epilogue per unit (see the top).
  TESSERA_DEVICE static void consume(Params<Cfg, Loader> const& p, SharedStorage& s, int c, int thread, BlockWork const& work,
                                     Pipe const& pipe, pipeline::Turns const& turns) {
    int const row0 = ping_pong ? 0 : 64 * c;  // this consumer's first row in the tile
    float* const columns = s.columns + c * Epi::column_floats;
    bool const stage_tile_columns = Epi::stages_columns(p.epilogue);
    typename Epi::Scaling scaling(p.epilogue);
    int chunk = 0;   // epilogue chunks this consumer has staged: the staging ring's position
    int waited = 0;  // ping-pong: turns waited for
    int pos = 0;     // the ring position of the unit's first k-tile
    for (int i = 0, w = work.first; w < work.total; ++i, w += work.stride) {
      WorkUnit const u = work.unit(w);
      // Ping-pong: consumer c takes the block's units c, c + 2, ... (the others' k-tiles pass by).
      if (ping_pong && i % 2 != c) {
        pos += u.kt1 - u.kt0;
        continue;
      }
      if constexpr (ping_pong) {
        if (i > 0) turns.wait(c, waited);  // the other consumer's mainloop is issued
      }
      Accum acc;
      [[maybe_unused]] float column_part[Epi::ColumnLoads];
      if constexpr (Epi::stage_columns) {
        if (stage_tile_columns) Epi::load_columns(p.epilogue, u.t.n * BN, u.batch, thread, column_part);
      }
      if constexpr (Epi::sourced) Epi::prefetch_source(p.epilogue, u.t.m * BM + row0, u.t.n * BN, u.batch, thread);
      Main::issue(acc, pipe, &s.stages[0][0], pos, u.kt1 - u.kt0, row0, thread);
      if constexpr (ping_pong) {
        if (thread == 0) turns.pass(c);  // the whole mainloop is issued: the other may queue its own behind it
      }
      Main::finish(acc, pipe, pos, thread);
      int const row_base = u.t.m * BM + row0;
      if (p.grid.k_splits > 1 && !Split::reduce(p.split, p.grid.k_splits, acc, u, row_base, p.epilogue.store.m, c, thread)) continue;
      if constexpr (Epi::stage_columns) {
        if (stage_tile_columns) Epi::store_columns(p.epilogue, columns, c, thread, column_part);
      }
      Epi::apply(p.epilogue, acc, row_base, u.t.n * BN, u.batch, c, thread, s.staging[c][0], chunk, scaling, columns);
    }
    Epi::finish(p.epilogue, scaling, thread);
  }
};

// The kernel's body needs sm_90a (wgmma, setmaxnreg). Built for any other target (sm_80, or
// sm_90 without the a, whose code an H100 would pick), it is only a marker instead: a static
// shared variable, which the host reads from the kernel's attributes (built_for_sm90a) to refuse
// the launch with the fix rather than trap on the GPU. (It also keeps the other targets' builds
// of these kernels short.)
template <class Cfg, class Loader = TiledLoader<Cfg>>
__global__ void __launch_bounds__(Cfg::threads, 1) gemm_kernel(__grid_constant__ Params<Cfg, Loader> const p) {
#if defined(TESSERA_ARCH_SM90A)
  extern __shared__ __align__(1024) char smem[];  // the swizzled tiles need 1024-byte alignment
  using K = Kernel<Cfg, Loader>;
  K::run(p, *reinterpret_cast<typename K::SharedStorage*>(smem));
#elif TESSERA_DEVICE_PASS
  (void)p;
  __shared__ int built_without_sm90a;
  asm volatile("st.shared.u32 [%0], 0;\n" ::"r"(arch::smem_address(&built_without_sm90a)) : "memory");
  TESSERA_UNREACHABLE("the sm90 GEMM needs sm_90a: build with CMAKE_CUDA_ARCHITECTURES=90a (-gencode arch=compute_90a,code=sm_90a)");
#endif
}

// (Whether a binary holds the sm_90a body: arch::sm90::built_for_sm90a on the kernel's attributes.)
using arch::sm90::built_for_sm90a;

}  // namespace tessera::gemm::sm90
