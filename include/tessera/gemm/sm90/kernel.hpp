// The sm_90a GEMM kernel: D = epilogue(A * B) with TMA loads and wgmma, warp-specialized and
// persistent: blocks (one per multiprocessor) walk the output tiles blockIdx.x, blockIdx.x +
// gridDim.x, ... in the grouped raster's order.
//
// Warpgroup 0 is the producer: one thread walks the block's tiles and their k-tiles, and for each
// waits for a free stage of one ring (its `empty` barrier), announces the stage's bytes on its
// `full` barrier and issues the TMA copies of A's BM x BK and B's BN x BK boxes into it; the
// other warps of the group give their registers away (setmaxnreg). The ring runs across tiles, so
// the next tile's first k-tiles arrive while the consumers run the epilogue.
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
// staging (its rows x 32 columns of floats, rows padded to 36); the barriers. The epilogue runs
// in rounds of 32 columns: write the accumulators to the staging, read them back four elements
// of a row at a time, run the chain once per quad in a loop and store vectors.
// tessera-header: cuda-only
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "tessera/arch/sm80/ldmatrix.hpp"
#include "tessera/arch/sm90/mbarrier.hpp"
#include "tessera/arch/sm90/tma.hpp"
#include "tessera/arch/sm90/warpgroup.hpp"
#include "tessera/arch/sm90/wgmma.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/gemm/raster.hpp"
#include "tessera/tile/smem_layout.hpp"
#include "tessera/tile/wgmma_tile.hpp"

namespace tessera::gemm::sm90 {

template <class Cfg>
struct Params {
  arch::sm90::TmaDescriptor map_a, map_b;  // 3-D: (K, M or N, batch), boxes of BK x BM and BK x BN
  int m, n, k;
  typename Cfg::ElementD* d;
  std::int64_t d_row_stride, d_col_stride, batch_stride_d;  // elements
  int tiles_m, tiles_n, batch_count;
  int raster_group;
  typename Cfg::Epilogue epilogue;
};

// The common tail of both epilogues: `rows` x `cols` float accumulators staged at `region` (row
// pitch `pitch` floats) for the outputs at (row_base, col_base), read back four elements of a row
// at a time by `threads` threads; the chain runs once per quad in a loop (one copy of its code),
// and quads are stored as vectors where D is row-major and aligned. Outputs outside D are neither
// evaluated (a stage may read an operand of D's extent) nor stored.
template <class Cfg, int Rows, int Cols, int Pitch, int Threads>
TESSERA_DEVICE void store_staged(Params<Cfg> const& p, float const* region, int row_base, int col_base, int batch, int thread) {
  using ED = typename Cfg::ElementD;
  bool const interior = row_base + Rows <= p.m && col_base + Cols <= p.n;
  ED* const d = p.d + batch * p.batch_stride_d;
  bool const row_major = p.d_col_stride == 1;
  bool const vectors = row_major && p.d_row_stride % 4 == 0 && p.batch_stride_d % 4 == 0 &&
                       reinterpret_cast<std::uintptr_t>(p.d) % (4 * sizeof(ED)) == 0;
  struct alignas(4 * sizeof(ED)) Quad {
    ED v[4];
  };
  constexpr int quads_per_row = Cols / 4;
  TESSERA_UNROLL_N(4)
  for (int i = thread; i < Rows * quads_per_row; i += Threads) {
    int const r = i / quads_per_row, c = (i % quads_per_row) * 4;
    float4 const x = *reinterpret_cast<float4 const*>(region + r * Pitch + c);
    float const v[4] = {x.x, x.y, x.z, x.w};
    int const row = row_base + r, col = col_base + c;
    Quad out;
    bool in[4];
    TESSERA_UNROLL
    for (int j = 0; j < 4; ++j) {
      in[j] = interior || (row < p.m && col + j < p.n);
      out.v[j] = epilogue::convert_output<ED>(in[j] ? p.epilogue(v[j], epilogue::Coord{row, col + j, batch}) : 0.0f);
    }
    ED* const at = d + row * p.d_row_stride + col * p.d_col_stride;
    if (vectors && in[3]) {
      *reinterpret_cast<Quad*>(at) = out;
    } else {
      TESSERA_UNROLL
      for (int j = 0; j < 4; ++j)
        if (in[j]) at[j * p.d_col_stride] = out.v[j];
    }
  }
}

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
  static constexpr int pitch = 36;  // 32 staged columns + 4: conflict-free pair writes and quad reads
  static constexpr int staging_offset = Stages * stage_bytes;
  static constexpr int barrier_offset = staging_offset + Consumers * Rows * pitch * 4;
  static constexpr int smem_bytes = barrier_offset + (2 * Stages + (ping_pong ? 2 : 0)) * 8;

  // Registers after reallocation: the producer gives up what the consumers take (file: 64K).
  static constexpr int producer_registers = 40;
  static constexpr int consumer_registers = Consumers == 1 ? 256 : 232;
  static_assert(128 * producer_registers + Consumers * 128 * consumer_registers <= 65536,
                "gemm::sm90: the register split exceeds the register file");

  TESSERA_DEVICE static void run(Params<Cfg> const& p, char* smem) {
    int const tid = threadIdx.x;
    int const warpgroup = tid / 128;
    std::uint64_t* const bars = reinterpret_cast<std::uint64_t*>(smem + barrier_offset);
    auto full = [&](int s) { return arch::smem_address(bars + s); };
    auto empty = [&](int s) { return arch::smem_address(bars + Stages + s); };
    auto turn = [&](int c) { return arch::smem_address(bars + 2 * Stages + c); };
    if (tid == 0) {
      arch::sm90::tma_prefetch_descriptor(&p.map_a);
      arch::sm90::tma_prefetch_descriptor(&p.map_b);
      for (int s = 0; s < Stages; ++s) {
        arch::mbarrier_init(full(s), 1);                           // the producer's arrival (+ the bytes)
        arch::mbarrier_init(empty(s), ping_pong ? 1 : Consumers);  // the consumers of that k-tile
      }
      if constexpr (ping_pong) {
        arch::mbarrier_init(turn(0), 1);
        arch::mbarrier_init(turn(1), 1);
      }
      arch::fence_mbarrier_init();
    }
    __syncthreads();

    int const tiles = p.tiles_m * p.tiles_n, total = tiles * p.batch_count;
    int const k_tiles = (p.k + BK - 1) / BK;
    int const grid = int(gridDim.x);
    auto coord = [&](int work) { return raster(work % tiles, p.tiles_m, p.tiles_n, p.raster_group); };

    if (warpgroup == 0) {
      arch::sm90::setmaxnreg_dec<producer_registers>();
      if (tid == 0) {
        int pos = 0;  // position in the ring over all of this block's k-tiles
        for (int work = int(blockIdx.x); work < total; work += grid) {
          TileCoord const t = coord(work);
          int const batch = work / tiles;
          for (int kt = 0; kt < k_tiles; ++kt, ++pos) {
            int const s = pos % Stages;
            if (pos >= Stages) arch::mbarrier_wait(empty(s), ((pos / Stages) - 1) & 1);
            arch::mbarrier_arrive_expect_tx(full(s), stage_bytes);
            char* const stage = smem + s * stage_bytes;
            load<Cfg::a_k_major, BM>(stage, &p.map_a, kt * BK, t.m * BM, batch, full(s));
            load<Cfg::b_k_major, BN>(stage + bytes_a, &p.map_b, kt * BK, t.n * BN, batch, full(s));
          }
        }
      }
      return;
    }
    arch::sm90::setmaxnreg_inc<consumer_registers>();
    int const c = warpgroup - 1, thread = tid % 128;
    int const row0 = ping_pong ? 0 : 64 * c;  // this consumer's first row in the tile
    float* const region = reinterpret_cast<float*>(smem + staging_offset) + c * Rows * pitch;
    int const first = ping_pong ? c : 0, step = ping_pong ? 2 : 1;  // the block's tiles this consumer takes
    int turns = 0;                                                    // ping-pong: turns waited for
    for (int i = first, work = int(blockIdx.x) + first * grid; work < total; i += step, work += step * grid) {
      TileCoord const t = coord(work);
      int const batch = work / tiles;
      if constexpr (ping_pong) {
        if (i > 0) arch::mbarrier_wait(turn(c), turns++ & 1);  // the other consumer's mainloop is issued
      }
      typename Mma::Reg acc[MHalves][Mma::regs];
      TESSERA_UNROLL
      for (int h = 0; h < MHalves; ++h)
        TESSERA_UNROLL
        for (int r = 0; r < Mma::regs; ++r) acc[h][r] = 0;
      int const pos0 = i * k_tiles;
      for (int kt = 0; kt < k_tiles; ++kt) {
        int const pos = pos0 + kt, s = pos % Stages;
        arch::mbarrier_wait(full(s), (pos / Stages) & 1);
        char* const stage = smem + s * stage_bytes;
        arch::sm90::wgmma_fence();
        TESSERA_UNROLL
        for (int ks = 0; ks < KSteps; ++ks) {
          std::uint64_t const db = descriptor<TileB, Cfg::b_k_major>(arch::smem_address(stage + bytes_a), ks);
          TESSERA_UNROLL
          for (int h = 0; h < MHalves; ++h) {
            // Rows row0 + 64 h .. + 63 of A: 64 K-major rows, or one 64-row MN-major block, both BK x 128 bytes.
            std::uint64_t const da =
                descriptor<TileA, Cfg::a_k_major>(arch::smem_address(stage) + (row0 + 64 * h) * BK * int(sizeof(EA)), ks);
            Mma::ss(acc[h], da, db, true);
          }
        }
        arch::sm90::wgmma_commit_group();
        arch::sm90::wgmma_wait_group<1>();  // k-tile kt - 1's wgmma are done: its stage is free
        TESSERA_UNROLL
        for (int h = 0; h < MHalves; ++h) arch::sm90::wgmma_fence_operands(acc[h]);
        if (kt > 0 && thread == 0) arch::mbarrier_arrive(empty((pos - 1) % Stages));
      }
      // Ping-pong: the whole mainloop is issued, the other consumer may queue its own behind it.
      if constexpr (ping_pong) {
        if (thread == 0) arch::mbarrier_arrive(turn(1 - c));
      }
      arch::sm90::wgmma_wait_group<0>();
      TESSERA_UNROLL
      for (int h = 0; h < MHalves; ++h) arch::sm90::wgmma_fence_operands(acc[h]);
      if (thread == 0) arch::mbarrier_arrive(empty((pos0 + k_tiles - 1) % Stages));
      store(p, acc, t.m * BM + row0, t.n * BN, batch, c, thread, region);
    }
  }

  // One operand's k-tile: a K-major operand's box is (BK, Rows) at (k0, mn0); an MN-major one is
  // Rows / 64 boxes of (64, BK) at (mn0 + 64 j, k0), each filling one 64-row block.
  template <bool KMajor, int Rows>
  TESSERA_DEVICE static void load(char* dst, arch::sm90::TmaDescriptor const* map, int k0, int mn0, int batch, std::uint32_t bar) {
    if constexpr (KMajor) {
      arch::sm90::tma_load_3d(arch::smem_address(dst), map, k0, mn0, batch, bar);
    } else {
      TESSERA_UNROLL
      for (int j = 0; j < Rows / 64; ++j)
        arch::sm90::tma_load_3d(arch::smem_address(dst + j * 64 * BK * 2), map, mn0 + 64 * j, k0, batch, bar);  // 16-bit
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

  // The epilogue of one consumer, 32 columns (4 groups of 8) per round: value v = 4 j + 2 h + e of
  // row-half mh sits at row 64 mh + 16 warp + g + 8 h, column 8 j + 2 q + e (arch/sm90/wgmma.hpp).
  TESSERA_DEVICE static void store(Params<Cfg> const& p, typename Mma::Reg const (&acc)[MHalves][Mma::regs], int row_base,
                                   int col_base, int batch, int c, int thread, float* region) {
    int const warp = thread / 32, g = (thread % 32) / 4, q = thread % 4;
    TESSERA_UNROLL
    for (int round = 0; round < BN / 32; ++round) {
      if (round > 0) arch::sm90::named_barrier_sync(2 + c, 128);  // the previous round is read
      TESSERA_UNROLL
      for (int mh = 0; mh < MHalves; ++mh)
        TESSERA_UNROLL
        for (int v = 16 * round; v < 16 * round + 16; v += 2) {
          int const j = v / 4 - 4 * round, h = (v / 2) % 2;
          *reinterpret_cast<float2*>(region + (64 * mh + 16 * warp + g + 8 * h) * pitch + 8 * j + 2 * q) =
              float2{float(acc[mh][v]), float(acc[mh][v + 1])};
        }
      arch::sm90::named_barrier_sync(2 + c, 128);
      store_staged<Cfg, Rows, 32, pitch, 128>(p, region, row_base, col_base + 32 * round, batch, thread);
    }
    arch::sm90::named_barrier_sync(2 + c, 128);  // the region is read before the next tile's round 0
  }
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads, 1) gemm_kernel(__grid_constant__ Params<Cfg> const p) {
  extern __shared__ __align__(1024) char smem[];  // the swizzled tiles need 1024-byte alignment
  Kernel<Cfg>::run(p, smem);
}

}  // namespace tessera::gemm::sm90
