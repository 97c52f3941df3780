// The sm_90a GEMM kernel: D = epilogue(A * B) with TMA loads and wgmma, warp-specialized and
// persistent: blocks (one per multiprocessor) walk the output tiles blockIdx.x, blockIdx.x +
// gridDim.x, ... in the grouped raster's order.
//
// Clusters (Warpgroups<C, Schedule, ClusterShape<M, N>>): the grid's clusters walk cluster tiles
// of M x N output tiles instead, a block taking the tile of its rank. The blocks of a cluster
// column need the same B tile: each loads 1 / M of its rows and multicasts them to all M (A the
// same along a cluster row), so the stage is full when every part has landed, and it is free
// when the consumers of every block that received it have released it (remote arrivals).
//
// Warpgroup 0 is the producer: one thread walks the block's tiles and their k-tiles, and for each
// waits for a free stage of one ring (pipeline::TmaPipeline: its `empty` barrier), announces the
// stage's bytes on its `full` barrier and issues the TMA copies of A's BM x BK and B's BN x BK
// boxes into it; the other warps of the group give their registers away (setmaxnreg). The ring
// runs across tiles, so the next tile's first k-tiles arrive while the consumers run the epilogue.
//
// The consumers (Warpgroups<C, Schedule>):
//   Cooperative: every consumer works on every tile, 64 rows each: per k-tile it waits on `full`,
//                issues BK / K wgmma over the stage and, once the previous k-tile's wgmma have
//                completed (wgmma_wait_group<1>), releases that stage (C arrivals free it).
//   PingPong:    consumer c takes the block's tiles c, c + 2, ..., each a whole BM x BN tile
//                (BM / 64 wgmma per k-step), and the two take turns on the tensor cores: one
//                issues a tile's whole mainloop, hands the turn over (the other's `turn`
//                barrier) and runs its epilogue while the other's mainloop runs.
//
// Shared memory: Stages x (A tile, B tile), each a K-major tile::SwizzledTile of 128-byte rows
// (the TMA box lands in that layout, and the wgmma descriptors read it); each consumer's epilogue
// buffers; the barriers; where the Config leaves room, each consumer's copy of the tile's slice of
// the epilogue's column vectors (a per-column bias, scale or shift: loaded when the tile starts,
// stored before its epilogue, read there by the interior tiles' chain instead of global memory).
//
// The epilogue works on a chunk of 32 columns of the consumer's rows at a time (16 where BN is an
// odd multiple of 16), in registers: the chain runs on each accumulator with its coordinates and
// the result is converted to D's type. Where D is row-major and TMA can write it (Params::tma_d),
// the chunk goes through one of the consumer's swizzled staging buffers (stmatrix for 16-bit D)
// and one thread stores it with TMA, which clips the edges; chunks go in groups of up to four,
// with one barrier per group (see store()). Elsewhere (column-major or misaligned D) the threads
// store their values directly.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "tessera/arch/sm80/ldmatrix.hpp"  // smem_address
#include "tessera/arch/sm90/cluster.hpp"
#include "tessera/arch/sm90/mbarrier.hpp"
#include "tessera/arch/sm90/stmatrix.hpp"
#include "tessera/arch/sm90/tma.hpp"
#include "tessera/arch/sm90/warpgroup.hpp"
#include "tessera/arch/sm90/wgmma.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/gemm/config_check.hpp"
#include "tessera/gemm/raster.hpp"
#include "tessera/gemm/sm90/work.hpp"
#include "tessera/pipeline/tma_pipeline.hpp"
#include "tessera/tile/smem_layout.hpp"
#include "tessera/tile/wgmma_tile.hpp"

namespace tessera::gemm::sm90 {

template <class Cfg>
struct Params {
  arch::sm90::TmaDescriptor map_a, map_b;  // 3-D: (K, M or N, batch), boxes of BK x BM and BK x BN
  arch::sm90::TmaDescriptor map_d;         // 3-D: (N, M, batch), boxes of 32 x the consumer's rows; if tma_d
  bool tma_d;                              // D is stored with TMA (row-major, 16-byte aligned rows)
  arch::sm90::L2Eviction evict_a, evict_b;  // the L2 priority of A's and B's loads (gemm::L2Hint)
  int m, n, k;
  typename Cfg::ElementD* d;
  std::int64_t d_row_stride, d_col_stride, batch_stride_d;  // elements
  int tiles_m, tiles_n, batch_count;
  int raster_group;
  // Split-K: K's k-tiles in k_splits slices of k_tiles_per_split. The last slice of a tile sums
  // the others' accumulators from `partials` (a slot per tile, consumer part and earlier slice, in
  // fragment order) once its counter (per tile and part; zero before the launch, left zero by the
  // last slice) says they are there, and runs the epilogue.
  int k_splits, k_tiles_per_split;
  float* partials;
  int* counters;
  // Per-tensor scales (null: 1) and D's absolute maximum before scale_d (null: none; zero before).
  float const *scale_a, *scale_b, *scale_d;
  float* amax;
  // The kernel computes D^T = B^T A^T (Arguments::swap_ab; m, n, D's strides and the maps are the
  // transposed problem's): the epilogue gets coordinates (col, row).
  bool swap_ab;
  typename Cfg::Epilogue epilogue;
};

template <class Cfg>
struct Kernel {
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, Stages = Cfg::stages;
  static constexpr int Consumers = Cfg::consumer_warpgroups;
  static constexpr bool ping_pong = Cfg::ping_pong;
  // Rows of the tile each consumer computes: all of them (ping-pong) or 64.
  static constexpr int Rows = ping_pong ? BM : 64, MHalves = Rows / 64;
  static_assert(ping_pong ? Consumers == 2 : BM == 64 * Consumers, "gemm::sm90: the consumers must cover the tile's rows");
  // Clusters of ClusterM x ClusterN blocks on neighbouring tiles: the ClusterN blocks of a row of
  // tiles share A's tile and the ClusterM blocks of a column share B's; each loads its part of a
  // shared tile and multicasts it to the blocks that share it.
  static constexpr int ClusterM = Cfg::cluster_m, ClusterN = Cfg::cluster_n, ClusterSize = ClusterM * ClusterN;
  static constexpr arch::sm90::Major major_a = Cfg::a_k_major ? arch::sm90::Major::K : arch::sm90::Major::MN;
  static constexpr arch::sm90::Major major_b = Cfg::b_k_major ? arch::sm90::Major::K : arch::sm90::Major::MN;
  using Mma = arch::sm90::Wgmma<BN, EA, EB, typename Cfg::ElementAccumulator, major_a, major_b>;
  static constexpr int KSteps = BK / Mma::K;

  // A K-major operand is one swizzled tile (one TMA box of BK x rows); an MN-major one is blocks
  // of 64 rows (TMA boxes of 64 x BK, one per block).
  using TileA = std::conditional_t<Cfg::a_k_major, tile::SwizzledTile<EA, BM, BK>, tile::MnMajorTile<EA, BM, BK>>;
  using TileB = std::conditional_t<Cfg::b_k_major, tile::SwizzledTile<EB, BN, BK>, tile::MnMajorTile<EB, BN, BK>>;
  static constexpr int bytes_a = TileA::size * int(sizeof(EA)), bytes_b = TileB::size * int(sizeof(EB));
  static constexpr int stage_bytes = bytes_a + bytes_b;
  static_assert(bytes_a % 1024 == 0 && bytes_b % 1024 == 0, "gemm::sm90: tiles must keep the 1024-byte swizzle alignment");
  // The epilogue: chunks of EpiCols columns; per consumer, Buffers staging buffers of Rows x EpiCols
  // elements of D, swizzled over their rows as TMA's 32/64/128-byte swizzle (= the row's bytes).
  using ED = typename Cfg::ElementD;
  static constexpr bool identity_chain = std::is_same_v<typename Cfg::Epilogue, epilogue::Identity>;
  // A chunk: EpiCols columns of the consumer's rows, ChunkPairs pairs of outputs per thread.
  static constexpr int EpiCols = epilogue_columns_sm90(BN), ChunkPairs = EpiCols / 4, Buffers = Cfg::epilogue_buffers_sm90;
  using EpiTile = tile::SwizzledTile<ED, Rows, EpiCols>;
  static constexpr int buffer_bytes = Rows * EpiCols * int(sizeof(ED));
  static_assert(buffer_bytes % 1024 == 0 || sizeof(ED) == 1, "gemm::sm90: staging buffers must keep the swizzle alignment");
  static constexpr int staging_offset = Stages * stage_bytes;
  static constexpr int barrier_offset = staging_offset + Consumers * Buffers * buffer_bytes;
  using Pipe = pipeline::TmaPipeline<Stages, ClusterSize>;
  // The epilogue's column vectors (epilogue/chain.hpp: a per-column bias, scale or shift), staged
  // per tile where the Config leaves room (gemm::sm90_column_vector_bytes): each consumer's copy of
  // the tile's BN values of each, as floats, after the barriers.
  static constexpr int ColumnVectors = epilogue::column_vectors_of<typename Cfg::Epilogue>;
  static constexpr bool stage_columns = Cfg::column_vector_bytes_sm90 > 0;
  static_assert(!stage_columns || epilogue::ColumnStage<typename Cfg::Epilogue>,
                "gemm::sm90: an epilogue that declares column_vectors must read them staged too (epilogue/chain.hpp)");
  static constexpr int columns_offset = barrier_offset + Pipe::barrier_bytes + (ping_pong ? 2 : 0) * 8;
  static constexpr int smem_bytes = columns_offset + Cfg::column_vector_bytes_sm90;

  // Registers after reallocation: the producer gives up what the consumers take. setmaxnreg.inc
  // waits until the block's own pool (168 x 384 registers at launch for two consumers) has them, so
  // the split must fit that pool, not the 64K file: 40 + 2 x 232 does; 48 + 2 x 232 hangs.
  static constexpr int producer_registers = kSm90ProducerRegisters;
  static constexpr int consumer_registers = sm90_consumer_registers(Consumers);
  static_assert(128 * producer_registers + Consumers * 128 * consumer_registers <= (Consumers == 1 ? 65280 : 64512),
                "gemm::sm90: the register split exceeds the block's registers at launch (setmaxnreg would wait forever)");

  // This block's work (gemm/sm90/work.hpp): the work grid, the grid's clusters and this block's
  // first item and rank in its cluster.
  using Unit = WorkUnit;
  struct Work {
    WorkGrid g;
    int total, grid, first, rank_m, rank_n;
    TESSERA_DEVICE Work(Params<Cfg> const& p, int rm, int rn)
        : g{p.tiles_m, p.tiles_n, p.batch_count, (p.k + BK - 1) / BK, p.k_splits, p.k_tiles_per_split, p.raster_group, ClusterM,
            ClusterN},
          total(g.total()),
          grid(int(gridDim.x) / ClusterSize),
          first(int(blockIdx.x) / ClusterSize),
          rank_m(rm),
          rank_n(rn) {}
    TESSERA_DEVICE Unit unit(Params<Cfg> const&, int w) const { return g.unit(w, rank_m, rank_n); }
  };

  TESSERA_DEVICE static void run(Params<Cfg> const& p, char* smem) {
    int const tid = threadIdx.x;
    int const warpgroup = tid / 128;
    std::uint64_t* const bars = reinterpret_cast<std::uint64_t*>(smem + barrier_offset);
    Pipe const pipe(bars);
    auto turn = [&](int c) { return arch::smem_address(bars + 2 * Stages + c); };
    int const rank = ClusterSize > 1 ? arch::sm90::cluster_ctarank() : 0;
    int const rank_m = rank % ClusterM, rank_n = rank / ClusterM;  // this block's tile in its cluster's
    if (tid == 0) {
      arch::sm90::tma_prefetch_descriptor(&p.map_a);
      arch::sm90::tma_prefetch_descriptor(&p.map_b);
      if constexpr (ping_pong) {
        arch::mbarrier_init(turn(0), 1);
        arch::mbarrier_init(turn(1), 1);
      }
      pipe.init(ping_pong ? 1 : Consumers);  // a stage is read by every consumer, or by one in ping-pong
    }
    if constexpr (ClusterSize > 1) arch::sm90::cluster_sync();  // the cluster's barriers are initialized
    else __syncthreads();

    Work const work(p, rank_m, rank_n);
    if (warpgroup == 0) {
      arch::sm90::setmaxnreg_dec<producer_registers>();
      produce(p, smem, tid, work, pipe);
    } else {
      arch::sm90::setmaxnreg_inc<consumer_registers>();
      consume(p, smem, tid, work, pipe, turn);
    }
    // No block of a cluster leaves while another may still write its shared memory or barriers.
    if constexpr (ClusterSize > 1) {
      __syncwarp();
      arch::sm90::cluster_sync();
    }
  }

  // The producer: thread 0 walks the block's tiles and their k-tiles over the ring of stages.
  TESSERA_DEVICE static void produce(Params<Cfg> const& p, char* smem, int tid, Work const& work, Pipe const& pipe) {
    // The blocks sharing A's tile (this cluster row) and B's (this cluster column).
    int const rank_m = work.rank_m, rank_n = work.rank_n;
    std::uint16_t a_mask = 0, b_mask = 0;
    for (int j = 0; j < ClusterN; ++j) a_mask |= std::uint16_t(1u << (rank_m + ClusterM * j));
    for (int i = 0; i < ClusterM; ++i) b_mask |= std::uint16_t(1u << (ClusterM * rank_n + i));
    if (tid == 0) {
      // An operand of normal priority is loaded without a hint: on the H100, the hinted form with
      // an evict_normal policy ran decode shapes up to 60% slower than no hint, and a run-time
      // choice per copy 10% slower than none (M = 128: unhinted, 90.6 against 82.8 us).
      bool const hint_a = p.evict_a != arch::sm90::L2Eviction::kNormal, hint_b = p.evict_b != arch::sm90::L2Eviction::kNormal;
      if (hint_a) {
        if (hint_b) walk<true, true>(p, smem, work, pipe, a_mask, b_mask);
        else walk<true, false>(p, smem, work, pipe, a_mask, b_mask);
      } else {
        if (hint_b) walk<false, true>(p, smem, work, pipe, a_mask, b_mask);
        else walk<false, false>(p, smem, work, pipe, a_mask, b_mask);
      }
    }
  }

  // The producer thread's walk over the block's tiles and their k-tiles, with or without an L2
  // cache policy on A's and B's loads.
  template <bool HintA, bool HintB>
  TESSERA_DEVICE static void walk(Params<Cfg> const& p, char* smem, Work const& work, Pipe const& pipe, std::uint16_t a_mask,
                                  std::uint16_t b_mask) {
    std::uint64_t const policy_a = HintA ? arch::sm90::l2_policy(p.evict_a) : 0;
    std::uint64_t const policy_b = HintB ? arch::sm90::l2_policy(p.evict_b) : 0;
    int pos = 0;  // position in the ring over all of this block's k-tiles
    for (int w = work.first; w < work.total; w += work.grid) {
      Unit const u = work.unit(p, w);
      TileCoord const t = u.t;
      int const batch = u.batch;
      for (int kt = u.kt0; kt < u.kt1; ++kt, ++pos) {
        std::uint32_t const full = pipe.producer_acquire(pos, stage_bytes);
        char* const stage = smem + pos % Stages * stage_bytes;
        load<Cfg::a_k_major, BM, ClusterN, HintA>(stage, &p.map_a, kt * BK, t.m * BM, batch, full, work.rank_n, a_mask, policy_a);
        load<Cfg::b_k_major, BN, ClusterM, HintB>(stage + bytes_a, &p.map_b, kt * BK, t.n * BN, batch, full, work.rank_m, b_mask,
                                                  policy_b);
      }
    }
  }

  // The consumers (see the top of the file).
  template <class Turn>
  TESSERA_DEVICE static void consume(Params<Cfg> const& p, char* smem, int tid, Work const& work, Pipe const& pipe, Turn turn) {
    int const c = tid / 128 - 1, thread = tid % 128;
    int const row0 = ping_pong ? 0 : 64 * c;  // this consumer's first row in the tile
    char* const staging = smem + staging_offset + c * Buffers * buffer_bytes;
    float* const columns = reinterpret_cast<float*>(smem + columns_offset) + c * ColumnVectors * BN;
    // The tile's column vectors are staged unless the kernel computes D^T (its columns are D's rows).
    bool const stage_tile_columns = stage_columns && !p.swap_ab;
    int chunk = 0;  // epilogue chunks this consumer has staged: the next buffer is chunk % Buffers
    Scaling scaling{(p.scale_a ? *p.scale_a : 1.0f) * (p.scale_b ? *p.scale_b : 1.0f), p.scale_d ? *p.scale_d : 1.0f, 0.0f};
    int turns = 0;  // ping-pong: turns waited for
    int pos = 0;    // the ring position of the unit's first k-tile
    for (int i = 0, w = work.first; w < work.total; ++i, w += work.grid) {
      Unit const u = work.unit(p, w);
      // Ping-pong: consumer c takes the block's units c, c + 2, ... (the others' k-tiles pass by).
      if (ping_pong && i % 2 != c) {
        pos += u.kt1 - u.kt0;
        continue;
      }
      if constexpr (ping_pong) {
        if (i > 0) arch::mbarrier_wait(turn(c), turns++ & 1);  // the other consumer's mainloop is issued
      }
      // The unit's first k-step writes the accumulators without reading them (ss_first): no
      // zeroing between two tiles (an instruction per register, with the tensor cores idle), and
      // the last tile's values die in its epilogue. The first k-tile is issued ahead of the loop
      // without a wait of its own (with its wait and release peeled too, ptxas took minutes on
      // long chains; the loop's first wait<1> covers it).
      typename Mma::Reg acc[MHalves][Mma::regs];
      [[maybe_unused]] float column_part[ColumnLoads];
      if constexpr (stage_columns) {
        if (stage_tile_columns) load_columns(p, u.t.n * BN, thread, column_part);
      }
      auto const a_desc = [&](char* stage, int h, int ks) {
        // Rows row0 + 64 h .. + 63 of A: 64 K-major rows, or one 64-row MN-major block, both BK x 128 bytes.
        return descriptor<TileA, Cfg::a_k_major>(arch::smem_address(stage) + (row0 + 64 * h) * BK * int(sizeof(EA)), ks);
      };
      auto const b_desc = [&](char* stage, int ks) { return descriptor<TileB, Cfg::b_k_major>(arch::smem_address(stage + bytes_a), ks); };
      auto const issue = [&](char* stage, bool first) {
        TESSERA_UNROLL
        for (int ks = 0; ks < KSteps; ++ks) {
          std::uint64_t const db = b_desc(stage, ks);
          TESSERA_UNROLL
          for (int h = 0; h < MHalves; ++h) {
            if (first && ks == 0) Mma::ss_first(acc[h], a_desc(stage, h, ks), db);
            else Mma::ss(acc[h], a_desc(stage, h, ks), db, true);
          }
        }
      };
      pipe.consumer_wait(pos);
      arch::sm90::wgmma_fence();
      issue(smem + pos % Stages * stage_bytes, true);
      arch::sm90::wgmma_commit_group();
      ++pos;
      for (int kt = u.kt0 + 1; kt < u.kt1; ++kt, ++pos) {
        pipe.consumer_wait(pos);
        arch::sm90::wgmma_fence();
        issue(smem + pos % Stages * stage_bytes, false);
        arch::sm90::wgmma_commit_group();
        arch::sm90::wgmma_wait_group<1>();  // k-tile kt - 1's wgmma are done: its stage is free
        TESSERA_UNROLL
        for (int h = 0; h < MHalves; ++h) arch::sm90::wgmma_fence_operands(acc[h]);
        if (thread == 0) pipe.consumer_release(pos - 1);
      }
      // Ping-pong: the whole mainloop is issued, the other consumer may queue its own behind it.
      if constexpr (ping_pong) {
        if (thread == 0) arch::mbarrier_arrive(turn(1 - c));
      }
      arch::sm90::wgmma_wait_group<0>();
      TESSERA_UNROLL
      for (int h = 0; h < MHalves; ++h) arch::sm90::wgmma_fence_operands(acc[h]);
      if (thread == 0) pipe.consumer_release(pos - 1);
      int const row_base = u.t.m * BM + row0;
      if (p.k_splits > 1 && !reduce_slices(p, acc, u, row_base, c, thread)) continue;  // not the last slice
      if constexpr (stage_columns) {
        if (stage_tile_columns) {
          // The epilogues with TMA stores end with a barrier after their last reads of the copy.
          if (!p.tma_d) arch::sm90::named_barrier_sync(2 + c, 128);
          store_columns(columns, thread, column_part);
          arch::sm90::named_barrier_sync(2 + c, 128);
        }
      }
      // The epilogue in one of two instantiations, chosen once per tile: a general one (D's
      // coordinates swapped or not, amax or not, bounds), and one for a tile of a plain GEMM
      // inside D, where what is known at compile time costs nothing per output: a per-column
      // operand (a bias) is loaded once for both rows of a thread's pair, and a plain GEMM spends
      // about two instructions on an output. (Two, not more: each one compiles the whole chain;
      // the identity chain, which costs nothing to compile, has a third without the scales.)
      int const col_base = u.t.n * BN;
      if (!p.swap_ab && p.amax == nullptr && row_base + Rows <= p.m && col_base + BN <= p.n) {
        if constexpr (identity_chain) {
          if (scaling.ab * scaling.d == 1.0f)
            store<true, false>(p, acc, row_base, col_base, u.batch, c, thread, staging, chunk, scaling);
          else
            store<true>(p, acc, row_base, col_base, u.batch, c, thread, staging, chunk, scaling, columns);
        } else {
          store<true>(p, acc, row_base, col_base, u.batch, c, thread, staging, chunk, scaling, columns);
        }
      } else
        store<false>(p, acc, row_base, col_base, u.batch, c, thread, staging, chunk, scaling);
    }
    if (p.tma_d && thread == 0) arch::sm90::tma_store_wait<0>();  // the buffers stay valid until read
    if (p.amax != nullptr) {
      // The warp's largest |value|, then one atomic per warp: non-negative floats order as their bits.
      float m = scaling.amax;
      TESSERA_UNROLL
      for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
      if (thread % 32 == 0 && m > 0.0f) atomicMax(reinterpret_cast<int*>(p.amax), __float_as_int(m));
    }
  }

  // A tile's column vectors: thread t loads columns t, t + 128, ... of the tile of each when the
  // tile starts (the mainloop hides their latency) and stores them to its consumer's copy before
  // the epilogue. Columns past D's edge load nothing.
  static constexpr int ColumnParts = (BN + 127) / 128, ColumnLoads = stage_columns ? ColumnVectors * ColumnParts : 1;
  TESSERA_DEVICE static void load_columns(Params<Cfg> const& p, int col_base, int thread, float (&v)[ColumnLoads]) {
    TESSERA_UNROLL
    for (int j = 0; j < ColumnVectors; ++j)
      TESSERA_UNROLL
      for (int s = 0; s < ColumnParts; ++s) {
        int const col = 128 * s + thread;
        v[j * ColumnParts + s] = col < BN && col_base + col < p.n ? p.epilogue.column_value(j, col_base + col) : 0.0f;
      }
  }
  TESSERA_DEVICE static void store_columns(float* columns, int thread, float const (&v)[ColumnLoads]) {
    TESSERA_UNROLL
    for (int j = 0; j < ColumnVectors; ++j)
      TESSERA_UNROLL
      for (int s = 0; s < ColumnParts; ++s)
        if (128 * s + thread < BN) columns[j * BN + 128 * s + thread] = v[j * ColumnParts + s];
  }

  // The scales the epilogue applies around the chain, and this thread's running |max| of D.
  struct Scaling {
    float ab;  // scale_a * scale_b, on the accumulators
    float d;   // scale_d, on the chain's result
    float amax;
  };

  // Split-K across blocks. A slice other than the last writes this consumer's accumulators (rows
  // inside D only) to its slot, in fragment order, and counts itself done: false (no epilogue).
  // The last slice waits until the others are done, adds their slots to its accumulators in slice
  // order (the sum does not depend on timing), resets the counter and returns true. The blocks of
  // a tile's slices are resident at once (the grid is persistent) and take their units in order,
  // so the wait ends.
  TESSERA_DEVICE static bool reduce_slices(Params<Cfg> const& p, typename Mma::Reg (&acc)[MHalves][Mma::regs], Unit const& u,
                                           int row_base, int c, int thread) {
    constexpr int parts = ping_pong ? 1 : Consumers, values = MHalves * Mma::regs;  // per thread
    int const part = ping_pong ? 0 : c, warp = thread / 32, g = (thread % 32) / 4;
    int* const counter = p.counters + u.tile_id * parts + part;
    auto slot = [&](int slice) {
      return reinterpret_cast<float2*>(p.partials + ((std::int64_t(u.tile_id) * (p.k_splits - 1) + slice) * parts + part) * (128 * values));
    };
    // Value v = 4 j + 2 h + e of row-half mh sits at row row_base + 64 mh + 16 warp + g + 8 h. The
    // pairs (e = 0, 1) go to a slot as float2, thread-interleaved: pair q of a thread at q * 128 + thread.
    auto row_in = [&](int mh, int v) { return row_base + 64 * mh + 16 * warp + g + 8 * ((v / 2) % 2) < p.m; };
    if (u.slice < p.k_splits - 1) {
      float2* const out = slot(u.slice);
      TESSERA_UNROLL
      for (int mh = 0; mh < MHalves; ++mh)
        TESSERA_UNROLL
        for (int v = 0; v < Mma::regs; v += 2)
          if (row_in(mh, v))
            out[(mh * Mma::regs + v) / 2 * 128 + thread] = float2{float(acc[mh][v]), float(acc[mh][v + 1])};
      __threadfence();
      arch::sm90::named_barrier_sync(2 + c, 128);
      if (thread == 0) atomicAdd(counter, 1);
      return false;
    }
    if (thread == 0) {
      while (*reinterpret_cast<int volatile*>(counter) < p.k_splits - 1) __nanosleep(64);
      __threadfence();
      *counter = 0;  // every other slice has counted: none touches it again in this launch
    }
    arch::sm90::named_barrier_sync(2 + c, 128);
    // Eight pairs at a time over all slices: a bounded number of loads in flight (all of them at
    // once would need registers the accumulators hold).
    constexpr int group = 8;
    TESSERA_UNROLL
    for (int mh = 0; mh < MHalves; ++mh)
      TESSERA_UNROLL
      for (int v0 = 0; v0 < Mma::regs; v0 += 2 * group) {
        for (int slice = 0; slice < p.k_splits - 1; ++slice) {
          float2 const* const in = slot(slice);
          TESSERA_UNROLL
          for (int v = v0; v < v0 + 2 * group; v += 2)
            if (row_in(mh, v)) {
              float2 const x = __ldcg(in + (mh * Mma::regs + v) / 2 * 128 + thread);
              acc[mh][v] += x.x;
              acc[mh][v + 1] += x.y;
            }
        }
      }
    return true;
  }

  // Part `part` of `Parts` of one operand's k-tile (with L2 cache policy `policy` if Hint),
  // multicast to the blocks in `mask` when shared:
  // a K-major operand's part is a box of (BK, Rows / Parts) rows of 128 bytes at (k0, its first
  // row); an MN-major one is boxes of (64, BK) at (its 64-row block, k0), each filling a block
  // of 64 x 128 bytes.
  template <bool KMajor, int Rows, int Parts, bool Hint>
  TESSERA_DEVICE static void load(char* dst, arch::sm90::TmaDescriptor const* map, int k0, int mn0, int batch, std::uint32_t bar,
                                  int part, std::uint16_t mask, std::uint64_t policy) {
    constexpr int part_rows = Rows / Parts;
    auto const copy = [&](char* to, int c0, int c1) {
      std::uint32_t const at = arch::smem_address(to);
      if constexpr (Parts == 1) {
        if constexpr (Hint) arch::sm90::tma_load_3d(at, map, c0, c1, batch, bar, policy);
        else arch::sm90::tma_load_3d(at, map, c0, c1, batch, bar);
      } else {
        if constexpr (Hint) arch::sm90::tma_load_3d_multicast(at, map, c0, c1, batch, bar, mask, policy);
        else arch::sm90::tma_load_3d_multicast(at, map, c0, c1, batch, bar, mask);
      }
    };
    if constexpr (KMajor) {
      copy(dst + part * part_rows * 128, k0, mn0 + part * part_rows);
    } else {
      static_assert(part_rows % 64 == 0, "gemm::sm90: an MN-major operand is shared in whole 64-row blocks");
      int const j0 = part * (part_rows / 64);  // a fixed trip count: unrolled, no loop registers
      TESSERA_UNROLL
      for (int j = 0; j < part_rows / 64; ++j) copy(dst + (j0 + j) * 64 * 128, mn0 + 64 * (j0 + j), k0);
    }
  }

  // The descriptor of k-step ks of a tile at shared address `base`.
  template <class Tile, bool KMajor>
  TESSERA_DEVICE static std::uint64_t descriptor(std::uint32_t base, int ks) {
    if constexpr (KMajor) {
      return tile::k_major_descriptor<Tile>(base).advanced(std::uint32_t(ks * Mma::K * int(sizeof(EA)))).bits;
    } else {
      return tile::mn_major_descriptor<Tile>(base).advanced(std::uint32_t(ks) * Tile::k_step_bytes).bits;
    }
  }

  // The epilogue of one consumer: value v = 4 j + 2 h + e of row-half mh sits at row 64 mh +
  // 16 warp + g + 8 h, column 8 j + 2 q + e (arch/sm90/wgmma.hpp); chunk ch holds values 16 ch ..
  // 16 ch + 15, as 8 pairs (k = 2 j' + h for its j' = 0..3). Outputs outside D are not stored (and
  // their stages read operands of D's extent at the nearest coordinate inside it).
  // A pair of outputs: for 16-bit D one word, as cvt.rn.{bf16,f16}x2 writes it and stmatrix and a
  // paired store read it (two halves would be unpacked and packed again: two instructions a pair).
  struct alignas(2 * sizeof(ED)) Elements {
    ED v[2];
  };
  using Pair = std::conditional_t<sizeof(ED) == 2, std::uint32_t, Elements>;
  TESSERA_DEVICE static ED element(Pair const& pair, int e) {
    if constexpr (sizeof(ED) == 2) {
      return ED::from_bits(std::uint16_t(e == 0 ? pair & 0xFFFFu : pair >> 16));
    } else {
      return pair.v[e];
    }
  }

  // The epilogue's staging protocol. A consumer's Buffers staging buffers form a ring that its
  // tiles' chunks go through in groups of staging_group(Interior) chunks; thread 0 stores each
  // group with TMA, one bulk group per chunk group. The invariant: a buffer is written only once
  // every TMA store that read it has finished reading (cp.async.bulk.wait_group.read), which each
  // size of group keeps in its own way:
  //   - where the buffers hold one group (Sets = 1), thread 0 waits for all earlier stores before
  //     a group is staged, behind a barrier of its own: nothing is assumed of what came before;
  //   - where they hold two or more, the wait rides on the previous group's publishing barrier
  //     (its stores aside, at most Sets - 2 groups still read), which frees the buffers of the
  //     group Sets back: this assumes that the groups before were of the same size.
  // The interior and the general epilogue can group differently (four chunks against two for
  // 128- and 256-wide tiles of 16-bit D), and a block runs them in any order. So an epilogue of
  // two sets or more whose other form groups differently starts with the one-set wait: after an
  // interior tile's last group of four (buffers 0-3, its stores in flight), an edge tile's first
  // group of two would otherwise overwrite buffers 0-1 while TMA reads them -- the race of issue
  // 29 (wrong, run-to-run different outputs in the tiles just before the last tile column).
  // Sizes: four chunks of packed 16-bit outputs take 32 registers; interior tiles evaluate four at
  // a time (the best on the H100 for bias + GELU), the general epilogue, which needs more
  // registers, two, and a consumer with two row halves (ping-pong) stages each chunk as soon as it
  // is evaluated.
  TESSERA_HD static constexpr int staging_group(bool interior) {
    constexpr int chunks = BN / EpiCols;
    return Buffers >= 4 && MHalves == 1 && interior && chunks % 4 == 0 ? 4 : Buffers >= 4 && chunks % 2 == 0 ? 2 : 1;
  }

  // Interior: a tile inside D of a GEMM without swap_ab and amax; else both are read at run
  // time and outputs are checked against D's bounds. Scaled: the accumulators are multiplied by
  // scale_a * scale_b (and scale_d after the chain); an Interior tile of the identity chain whose
  // scales are all 1 skips the multiply (one instruction of the four a plain GEMM spends per output).
  template <bool Interior, bool Scaled = true>
  TESSERA_DEVICE static void store(Params<Cfg> const& p, typename Mma::Reg const (&acc)[MHalves][Mma::regs], int row_base,
                                   int col_base, int batch, int c, int thread, char* staging, int& chunk, Scaling& scaling,
                                   float const* columns = nullptr) {
    static_assert(Scaled || Interior, "gemm::sm90: only the interior epilogue has an unscaled form");
    int const warp = thread / 32, lane = thread % 32, g = lane / 4, q = lane % 4;
    bool const swap = !Interior && p.swap_ab, amax = !Interior && p.amax != nullptr;
    // scale_d folds into the accumulators' scale where nothing between them reads the value.
    constexpr bool fold_d = identity_chain && Interior;
    float const pre = fold_d ? scaling.ab * scaling.d : scaling.ab;
    // Chunk ch's outputs, converted to D's type.
    auto const evaluate = [&](int ch, Pair (&out)[MHalves][ChunkPairs]) {
      TESSERA_UNROLL
      for (int mh = 0; mh < MHalves; ++mh)
        TESSERA_UNROLL
        for (int k = 0; k < ChunkPairs; ++k) {
          int const v = EpiCols / 2 * ch + 2 * k;
          int const row = row_base + 64 * mh + 16 * warp + g + 8 * (k % 2), col = col_base + 8 * (v / 4) + 2 * q;
          float z[2];
          TESSERA_UNROLL
          for (int e = 0; e < 2; ++e) {
            // Branch-free: an output outside D is evaluated at the nearest coordinate inside it (its
            // stages read operands in bounds) and the result dropped; the loads of a chunk can then
            // all be in flight at once (a branch per element made each wait for the last).
            bool const in = Interior || ((row < p.m) & (col + e < p.n));  // no short-circuit branches
            int const r = Interior ? row : min(row, p.m - 1), cc = Interior ? col + e : min(col + e, p.n - 1);
            epilogue::Coord const at = swap ? epilogue::Coord{cc, r, batch} : epilogue::Coord{r, cc, batch};
            float const x = Scaled ? pre * float(acc[mh][v + e]) : float(acc[mh][v + e]);
            // An interior tile's column vectors are staged in `columns` (then never swap_ab).
            float y;
            if constexpr (Interior && stage_columns) y = p.epilogue(x, at, epilogue::ColumnValues{columns + (col + e - col_base), BN});
            else y = p.epilogue(x, at);
            if constexpr (!Interior) scaling.amax = fmaxf(scaling.amax, fabsf(in & amax ? y : 0.0f));  // a select, no branch
            float const scaled = fold_d || !Scaled ? y : scaling.d * y;
            z[e] = Interior ? scaled : (in ? scaled : 0.0f);
          }
          if constexpr (sizeof(ED) == 2) out[mh][k] = epilogue::convert_output_packed<ED>(z[0], z[1]);
          else epilogue::convert_output_pair<ED>(z[0], z[1], out[mh][k].v[0], out[mh][k].v[1]);
        }
    };
    // To D in groups of Group chunks: the chain runs over a group's outputs with nothing between
    // them (a bias's loads all in flight), each chunk goes to a staging buffer (stmatrix), one
    // barrier publishes the group and one thread stores its chunks with TMA (see staging_group for
    // the sizes and for the rule that keeps a buffer from being written while a store reads it).
    // Where D is not stored with TMA, the threads store each chunk themselves.
    constexpr int Chunks = BN / EpiCols;
    constexpr int Group = staging_group(Interior);
    constexpr bool batched = MHalves == 1;  // else each chunk is staged once evaluated (two row halves' registers)
    constexpr int Sets = Buffers / Group;  // groups the buffers hold
    static_assert(Buffers % Group == 0 && Sets >= 1, "gemm::sm90: the staging buffers must hold whole groups of chunks");
    // The previous tile's epilogue may have staged in groups of another size: its last stores may
    // still read any buffer (see staging_group), so this one waits for them before it stages.
    if constexpr (Sets >= 2 && staging_group(!Interior) != Group) {
      if (p.tma_d) {
        if (thread == 0) arch::sm90::tma_store_wait_read<0>();
        arch::sm90::named_barrier_sync(2 + c, 128);
      }
    }
    // A chunk's buffer: where a tile's chunks fill the buffers a whole number of times, each tile
    // starts at buffer 0 and the index is known at compile time (no address arithmetic).
    auto const buffer = [&](int ch) {
      return staging + (Chunks % Buffers == 0 ? ch % Buffers : (chunk + ch % Group) % Buffers) * buffer_bytes;
    };
    // Chunk ch's outputs to its staging buffer, or by the threads to D.
    auto const put = [&](int ch, Pair const (&out)[MHalves][ChunkPairs]) {
      if (p.tma_d) stage(out, buffer(ch), warp, lane);
      else store_direct(p, out, row_base + 16 * warp + g, col_base + EpiCols * ch + 2 * q, batch, Interior);
    };
    // The group of chunks from ch0 is staged: one thread stores it with TMA once all have.
    auto const publish = [&](int ch0) {
      if (!p.tma_d) return;
      arch::sm90::fence_proxy_async_shared();
      if constexpr (Sets >= 2) {
        if (thread == 0) arch::sm90::tma_store_wait_read<Sets - 2>();
      }
      arch::sm90::named_barrier_sync(2 + c, 128);
      if (thread == 0) {
        TESSERA_UNROLL
        for (int i = 0; i < Group; ++i)
          arch::sm90::tma_store_3d(&p.map_d, col_base + EpiCols * (ch0 + i), row_base, batch,
                                   arch::smem_address(buffer(ch0 + i)));
        arch::sm90::tma_store_commit();
      }
    };
    TESSERA_UNROLL
    for (int ch0 = 0; ch0 < Chunks; ch0 += Group) {
      if constexpr (batched) {
        Pair out[Group][MHalves][ChunkPairs];
        TESSERA_UNROLL
        for (int i = 0; i < Group; ++i) evaluate(ch0 + i, out[i]);
        if constexpr (Sets == 1) {
          if (p.tma_d) {
            if (thread == 0) arch::sm90::tma_store_wait_read<0>();
            arch::sm90::named_barrier_sync(2 + c, 128);
          }
        }
        TESSERA_UNROLL
        for (int i = 0; i < Group; ++i) put(ch0 + i, out[i]);
      } else {
        static_assert(Sets >= 2, "gemm::sm90: chunks staged one by one need buffers for two groups");
        TESSERA_UNROLL
        for (int i = 0; i < Group; ++i) {
          Pair out[MHalves][ChunkPairs];
          evaluate(ch0 + i, out);
          put(ch0 + i, out);
        }
      }
      publish(ch0);
      chunk += Group;
    }
  }

  // A chunk into its staging buffer: four 8 x 8 matrices per stmatrix for 16-bit D (lane l gives
  // row l % 8 of matrix l / 8 = pairs 4 jp + l / 8), one pair per thread otherwise.
  TESSERA_DEVICE static void stage(Pair const (&out)[MHalves][ChunkPairs], char* buffer, int warp, int lane) {
    constexpr auto layout = EpiTile::layout();
    TESSERA_UNROLL
    for (int mh = 0; mh < MHalves; ++mh) {
      if constexpr (sizeof(ED) == 2) {
        TESSERA_UNROLL
        for (int jp = 0; jp < EpiCols / 16; ++jp) {
          int const m = lane / 8, row = 64 * mh + 16 * warp + 8 * (m % 2) + lane % 8, col = 8 * (2 * jp + m / 2);
          arch::sm90::stmatrix_x4(arch::smem_address(buffer + int(layout(row, col)) * 2), out[mh][4 * jp], out[mh][4 * jp + 1],
                                  out[mh][4 * jp + 2], out[mh][4 * jp + 3]);
        }
      } else {
        int const g = lane % 32 / 4, q = lane % 4;
        TESSERA_UNROLL
        for (int k = 0; k < ChunkPairs; ++k) {
          int const row = 64 * mh + 16 * warp + g + 8 * (k % 2), col = 8 * (k / 2) + 2 * q;
          *reinterpret_cast<Pair*>(buffer + int(layout(row, col)) * int(sizeof(ED))) = out[mh][k];
        }
      }
    }
  }

  // A chunk straight to D: pairs as one store where D is row-major and pairs are aligned, else
  // element by element. (row0, col0): this thread's first output of the chunk.
  TESSERA_DEVICE static void store_direct(Params<Cfg> const& p, Pair const (&out)[MHalves][ChunkPairs], int row0, int col0, int batch,
                                          bool interior) {
    ED* const d = p.d + batch * p.batch_stride_d;
    bool const pairs = p.d_col_stride == 1 && p.d_row_stride % 2 == 0 && p.batch_stride_d % 2 == 0 &&
                       reinterpret_cast<std::uintptr_t>(p.d) % sizeof(Pair) == 0;
    TESSERA_UNROLL
    for (int mh = 0; mh < MHalves; ++mh)
      TESSERA_UNROLL
      for (int k = 0; k < ChunkPairs; ++k) {
        int const row = row0 + 64 * mh + 8 * (k % 2), col = col0 + 8 * (k / 2);
        bool const in0 = interior || (row < p.m && col < p.n), in1 = interior || (row < p.m && col + 1 < p.n);
        ED* const at = d + row * p.d_row_stride + col * p.d_col_stride;
        if (pairs && in1) {
          *reinterpret_cast<Pair*>(at) = out[mh][k];
        } else {
          if (in0) at[0] = element(out[mh][k], 0);
          if (in1) at[p.d_col_stride] = element(out[mh][k], 1);
        }
      }
  }
};

// The kernel's body needs sm_90a (wgmma, setmaxnreg). Built for any other target (sm_80, or
// sm_90 without the a, whose code an H100 would pick), it is only a marker instead: a static
// shared variable, which the host reads from the kernel's attributes (built_for_sm90a) to refuse
// the launch with the fix rather than trap on the GPU. (It also keeps the other targets' builds
// of these kernels short.)
template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads, 1) gemm_kernel(__grid_constant__ Params<Cfg> const p) {
#if defined(TESSERA_ARCH_SM90A)
  extern __shared__ __align__(1024) char smem[];  // the swizzled tiles need 1024-byte alignment
  Kernel<Cfg>::run(p, smem);
#elif TESSERA_DEVICE_PASS
  (void)p;
  __shared__ int built_without_sm90a;
  asm volatile("st.shared.u32 [%0], 0;\n" ::"r"(arch::smem_address(&built_without_sm90a)) : "memory");
  TESSERA_UNREACHABLE("the sm90 GEMM needs sm_90a: build with CMAKE_CUDA_ARCHITECTURES=90a (-gencode arch=compute_90a,code=sm_90a)");
#endif
}

// Whether `attributes` (cudaFuncGetAttributes of gemm_kernel, for the current device) are those
// of the sm_90a body: the other targets' marker is the kernel's only static shared memory.
inline bool built_for_sm90a(cudaFuncAttributes const& attributes) { return attributes.sharedSizeBytes == 0; }

}  // namespace tessera::gemm::sm90
