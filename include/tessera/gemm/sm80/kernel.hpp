// The sm_80 GEMM kernel: D = epilogue(A * B), one block per work item (an output tile of one
// batch entry and one K slice).
//
// Mainloop: a multistage cp.async pipeline, all stages in flight, brings BM x BK and BN x BK tiles
// into swizzled shared memory; warps load MMA fragments with ldmatrix (or element by element for
// the MN-major tf32 / int8 tiles, which ldmatrix cannot transpose) and issue mma.sync. K residues
// are zero-filled by the copies; M and N residues are not copied (they feed only outputs that are
// never stored). Epilogue: each warp stages its accumulators through the freed stages and runs the
// chain on quads of D read back from them, stored as vectors (split-K: each slice writes floats to
// a workspace, which a second kernel sums and runs the chain on). docs/gemm.md has the details.
// tessera-header: cuda-only
#pragma once

#include <cstdint>
#include <cstring>

#include "tessera/arch/arch.hpp"
#include "tessera/atom/copy_sm80.hpp"
#include "tessera/atom/mma_sm80.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/epilogue/convert.hpp"
#include "tessera/gemm/data_parallel.hpp"
#include "tessera/gemm/raster.hpp"
#include "tessera/pipeline/gmem_to_smem.hpp"
#include "tessera/pipeline/multistage.hpp"
#include "tessera/tile/mma_tile.hpp"
#include "tessera/tile/smem_layout.hpp"

namespace tessera::gemm::sm80 {

// Everything a launch needs, passed by value (gemm/data_parallel.hpp).
template <class Cfg>
using Params = DataParallelParams<Cfg>;

template <class Cfg>
struct Kernel {
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  using Acc = typename Cfg::ElementAccumulator;
  using Traits = atom::MmaTraits<typename Cfg::MmaOp>;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, Threads = Cfg::threads, Stages = Cfg::stages;
  using Tile = tile::MmaTile<typename Cfg::MmaOp, Cfg::warps_m, Cfg::warps_n, BM / (Cfg::warps_m * Traits::M),
                             BN / (Cfg::warps_n * Traits::N)>;
  static constexpr int AtomsM = Tile::atoms_m, AtomsN = Tile::atoms_n;
  static constexpr int KSteps = BK / Traits::K;  // MMA k-steps per k-tile
  // Shared tiles: (mn, k) when K-major, (k, mn) when MN-major.
  using SmemA = std::conditional_t<Cfg::a_k_major, tile::SwizzledTile<EA, BM, BK>, tile::SwizzledTile<EA, BK, BM>>;
  using SmemB = std::conditional_t<Cfg::b_k_major, tile::SwizzledTile<EB, BN, BK>, tile::SwizzledTile<EB, BK, BN>>;
  static constexpr int stage_bytes_a = SmemA::size * int(sizeof(EA)), stage_bytes_b = SmemB::size * int(sizeof(EB));
  static constexpr int smem_bytes = Stages * (stage_bytes_a + stage_bytes_b);  // A's stages, then B's
  static_assert(smem_bytes == Cfg::smem_bytes, "gemm::sm80::Kernel: shared-memory accounting differs from the Config's");

  // Shared-memory addresses of one operand's ldmatrix loads, computed once per thread: every
  // (atom, k-step) address is the base plus a constant, then XOR a constant. This holds because the
  // swizzle reads only the low 4 bits of a row (static_assert below), so moving by 16 rows adds
  // rows * Cols unswizzled, and because the per-step offsets occupy other bits than the lane's.
  template <bool IsA, class E, class Smem, bool KMajor>
  struct FragmentAddress {
    static constexpr int sz = int(sizeof(E));
    static constexpr int cols = IsA ? (KMajor ? BK : BM) : (KMajor ? BK : BN);
    static_assert(Smem::swizzle_row_bits <= 4, "gemm::sm80: the shared tile's swizzle reads more than 4 row bits");
    std::uint32_t base;  // shared address of this lane's row for atom 0, k-step 0, stage 0
    std::uint32_t base_ks[KMajor ? KSteps : 1];  // K-major: base ^ (k-step ks's column offset)

    TESSERA_DEVICE FragmentAddress(E const* tile, int mn0, int lane) {
      constexpr int EL = 16 / sz;  // elements per 16-byte chunk
      int row, col;
      if constexpr (KMajor) {
        row = mn0 + (lane % 8) + (IsA ? 8 * ((lane / 8) % 2) : 8 * (lane / 16));
        col = EL * (IsA ? lane / 16 : (lane / 8) % 2);
      } else {
        row = (lane % 8) + (IsA ? 8 * (lane / 16) : 8 * ((lane / 8) % 2));
        col = mn0 + (IsA ? 8 * ((lane / 8) % 2) : 8 * (lane / 16));
      }
      base = arch::smem_address(tile) + std::uint32_t(Smem::layout()(row, col)) * sz;
      if constexpr (KMajor) {
        TESSERA_UNROLL
        for (int ks = 0; ks < KSteps; ++ks) base_ks[ks] = base ^ std::uint32_t(ks * Traits::K * sz);
      }
    }
    // Atom `i` (A) or atom pair `i` (B: 16 columns), k-step ks, in the stage at byte offset `stage`.
    // K-major: (base + stage + i * 16 rows) ^ (ks * K columns). The XOR touches bits below
    // 16 * cols * sz, of which the stage and row offsets are multiples, so it can be applied to the
    // base first: base_ks[ks] + stage per k-step, and the atom offset becomes an immediate.
    TESSERA_DEVICE std::uint32_t at(std::uint32_t stage, int i, int ks) const {
      if constexpr (KMajor) {
        static_assert(BK * sz <= 16 * cols * sz && Smem::size % (16 * cols) == 0,
                      "gemm::sm80: the k-step XOR must stay below the row-block and stage offsets");
        return base_ks[ks] + stage + std::uint32_t(i * 16 * cols * sz);
      } else {
        return ((base + stage) ^ std::uint32_t(i * 16 * sz)) + std::uint32_t(ks * Traits::K * cols * sz);
      }
    }
  };

  // Fast path: 16-bit MN-major or any K-major tile, through precomputed addresses.
  template <bool IsA, class E, class Smem, bool KMajor>
  TESSERA_DEVICE static void load_fragments_at(std::uint32_t (&r)[IsA ? AtomsM : AtomsN][IsA ? 4 : 2],
                                               FragmentAddress<IsA, E, Smem, KMajor> const& fa, std::uint32_t stage,
                                               int ks) {
    if constexpr (IsA) {
      TESSERA_UNROLL
      for (int am = 0; am < AtomsM; ++am) {
        if constexpr (KMajor) arch::ldmatrix_x4(r[am], fa.at(stage, am, ks));
        else arch::ldmatrix_x4_trans(r[am], fa.at(stage, am, ks));
      }
    } else {
      TESSERA_UNROLL
      for (int an = 0; an < AtomsN; an += 2) {
        std::uint32_t x[4];
        if constexpr (KMajor) arch::ldmatrix_x4(x, fa.at(stage, an / 2, ks));
        else arch::ldmatrix_x4_trans(x, fa.at(stage, an / 2, ks));
        r[an][0] = x[0];
        r[an][1] = x[1];
        r[an + 1][0] = x[2];
        r[an + 1][1] = x[3];
      }
    }
  }

  // One operand's fragments for one K step: AtomsM (or AtomsN) atoms of the warp.
  template <bool IsA, class E, class Smem, bool KMajor>
  TESSERA_DEVICE static void load_fragments(std::uint32_t (&r)[IsA ? AtomsM : AtomsN][IsA ? 4 : 2], E const* tile,
                                            int mn0, int k0, int lane) {
    auto const offset = [](int row, int col) { return int(Smem::layout()(row, col)); };
    constexpr int atom_mn = IsA ? Traits::M : Traits::N;
    if constexpr (KMajor || sizeof(E) == 2) {
      if constexpr (IsA) {
TESSERA_UNROLL
        for (int am = 0; am < AtomsM; ++am) {
          if constexpr (KMajor) atom::ldmatrix_a_k_major(r[am], tile, offset, mn0 + am * atom_mn, k0, lane);
          else atom::ldmatrix_a_mn_major(r[am], tile, offset, mn0 + am * atom_mn, k0, lane);
        }
      } else {
TESSERA_UNROLL
        for (int an = 0; an < AtomsN; an += 2) {
          std::uint32_t x[4];
          if constexpr (KMajor) atom::ldmatrix_b_k_major(x, tile, offset, mn0 + an * atom_mn, k0, lane);
          else atom::ldmatrix_b_mn_major(x, tile, offset, mn0 + an * atom_mn, k0, lane);
          r[an][0] = x[0];
          r[an][1] = x[1];
          r[an + 1][0] = x[2];
          r[an + 1][1] = x[3];
        }
      }
    } else {
      // MN-major tf32 / int8: element by element, through the atom's thread-value layout.
      constexpr int values = IsA ? Traits::M * Traits::K / 32 : Traits::N * Traits::K / 32;
TESSERA_UNROLL
      for (int i = 0; i < (IsA ? AtomsM : AtomsN); ++i) {
        E v[values];
TESSERA_UNROLL
        for (int j = 0; j < values; ++j) {
          int const idx = IsA ? int(Traits::a_layout()(lane, j)) : int(Traits::b_layout()(lane, j));
          int const mn = idx % atom_mn, k = idx / atom_mn;
          v[j] = tile[offset(k0 + k, mn0 + i * atom_mn + mn)];
        }
        std::memcpy(r[i], v, sizeof(v));
      }
    }
  }

  // One work item: an output tile of one batch entry and one K slice.
  using Work = WorkItem;

  // The copies of one work item's A and B k-tiles, with addresses computed once (when the tile
  // shape allows it) or per k-tile. load(p, smem, stage, kt) is called for kt = 0, 1, 2, ... in
  // order. The narrow path keeps no per-thread copy state (Empty).
  template <int VecA, int VecB>
  struct Loader {
    using CopyA = std::conditional_t<Cfg::a_k_major, pipeline::TileCopy<BM, BK, Threads, VecA, EA, SmemA>,
                                     pipeline::TileCopy<BK, BM, Threads, VecA, EA, SmemA>>;
    using CopyB = std::conditional_t<Cfg::b_k_major, pipeline::TileCopy<BN, BK, Threads, VecB, EB, SmemB>,
                                     pipeline::TileCopy<BK, BN, Threads, VecB, EB, SmemB>>;
    static constexpr bool fast = CopyA::applicable && CopyB::applicable;
    struct Empty {};
    Work w;
    int k_begin, k_end, k_tiles;
    std::conditional_t<fast, CopyA, Empty> copy_a;
    std::conditional_t<fast, CopyB, Empty> copy_b;

    TESSERA_DEVICE static int first_k(Params<Cfg> const& p, Work const& w) { return w.split * p.k_tiles_per_split * BK; }
    TESSERA_DEVICE static auto make_a(Params<Cfg> const& p, Work const& w, int tid) {
      if constexpr (fast) {
        EA const* const a = p.a + w.batch * p.batch_stride_a;
        return Cfg::a_k_major ? CopyA(a, p.lda, w.tm * BM, first_k(p, w), tid) : CopyA(a, p.lda, first_k(p, w), w.tm * BM, tid);
      } else {
        return Empty{};
      }
    }
    TESSERA_DEVICE static auto make_b(Params<Cfg> const& p, Work const& w, int tid) {
      if constexpr (fast) {
        EB const* const b = p.b + w.batch * p.batch_stride_b;
        return Cfg::b_k_major ? CopyB(b, p.ldb, w.tn * BN, first_k(p, w), tid) : CopyB(b, p.ldb, first_k(p, w), w.tn * BN, tid);
      } else {
        return Empty{};
      }
    }
    TESSERA_DEVICE Loader(Params<Cfg> const& p, Work const& w_, int tid)
        : w(w_),
          k_begin(first_k(p, w_)),
          k_end(min(p.k, k_begin + p.k_tiles_per_split * BK)),
          k_tiles((k_end - k_begin + BK - 1) / BK),
          copy_a(make_a(p, w_, tid)),
          copy_b(make_b(p, w_, tid)) {}

    TESSERA_DEVICE void operator()(Params<Cfg> const& p, char* smem, int stage, int kt) {
      if constexpr (fast) {
        std::uint32_t const sa = arch::smem_address(smem) + stage * stage_bytes_a;
        std::uint32_t const sb = arch::smem_address(smem) + Stages * stage_bytes_a + stage * stage_bytes_b;
        if constexpr (Cfg::a_k_major) copy_a.template copy<true>(sa, p.m, k_end);
        else copy_a.template copy<false>(sa, k_end, p.m);
        if constexpr (Cfg::b_k_major) copy_b.template copy<true>(sb, p.n, k_end);
        else copy_b.template copy<false>(sb, k_end, p.n);
        copy_a.advance(Cfg::a_k_major ? 0 : BK, Cfg::a_k_major ? BK : 0, p.lda);
        copy_b.advance(Cfg::b_k_major ? 0 : BK, Cfg::b_k_major ? BK : 0, p.ldb);
      } else {
        auto const offset_a = [](int row, int col) { return int(SmemA::layout()(row, col)); };
        auto const offset_b = [](int row, int col) { return int(SmemB::layout()(row, col)); };
        int const tid = threadIdx.x;
        int const k0 = k_begin + kt * BK;
        EA const* const a = p.a + w.batch * p.batch_stride_a;
        EB const* const b = p.b + w.batch * p.batch_stride_b;
        EA* sa = reinterpret_cast<EA*>(smem + stage * stage_bytes_a);
        EB* sb = reinterpret_cast<EB*>(smem + Stages * stage_bytes_a + stage * stage_bytes_b);
        if constexpr (Cfg::a_k_major) {
          pipeline::copy_tile<BM, BK, Threads, VecA>(sa, offset_a, a, p.lda, w.tm * BM, k0, p.m, k_end, tid);
        } else {
          pipeline::copy_tile<BK, BM, Threads, VecA>(sa, offset_a, a, p.lda, k0, w.tm * BM, k_end, p.m, tid);
        }
        if constexpr (Cfg::b_k_major) {
          pipeline::copy_tile<BN, BK, Threads, VecB>(sb, offset_b, b, p.ldb, w.tn * BN, k0, p.n, k_end, tid);
        } else {
          pipeline::copy_tile<BK, BN, Threads, VecB>(sb, offset_b, b, p.ldb, k0, w.tn * BN, k_end, p.n, tid);
        }
      }
    }
  };

  // One block per work item (grid x = tiles x batch x K slices, in the raster's order).
  template <int VecA, int VecB>
  TESSERA_DEVICE static void run(Params<Cfg> const& p, char* smem) {
    using Pipe = pipeline::Multistage<Stages>;
    int const tid = threadIdx.x;
    Work const w = work_item(p, int(blockIdx.x));
    Loader<VecA, VecB> loader(p, w, tid);
    auto load = [&](int stage, int kt) { loader(p, smem, stage, kt); };
    Pipe::prologue(load, loader.k_tiles);
    Acc acc[Tile::c_values];
    mainloop(load, loader.k_tiles, acc, smem, tid);
    Pipe::drain();  // the stages are free: the epilogue stages D through them
    store(p, acc, w, tid, smem);
  }

  // Mainloop. Fragments are double-buffered in registers: the loads of k-step s + 1 are issued
  // before the MMAs of s. The handover to the next stage (a barrier, then the refill of the stage
  // just finished) sits before the last k-step's MMAs, whose fragments are already in registers,
  // so that the MMAs cover the barrier; the refill goes out before the next tile's fragment loads.
  template <class Load>
  TESSERA_DEVICE static void mainloop(Load& load, int const k_tiles, Acc (&acc)[Tile::c_values], char* smem, int tid) {
    using Pipe = pipeline::Multistage<Stages>;
    constexpr int KS = KSteps;
    int const lane = tid % 32, warp = tid / 32;
    int const warp_m = warp % Cfg::warps_m, warp_n = warp / Cfg::warps_m;
    int const m0 = warp_m * AtomsM * Traits::M;
    int const n0 = warp_n * AtomsN * Traits::N;
    EA* const smem_a = reinterpret_cast<EA*>(smem);
    EB* const smem_b = reinterpret_cast<EB*>(smem + Stages * stage_bytes_a);
    std::uint32_t fa[2][AtomsM][4];
    std::uint32_t fb[2][AtomsN][2];
    constexpr bool fast_a = Cfg::a_k_major || sizeof(EA) == 2;
    constexpr bool fast_b = Cfg::b_k_major || sizeof(EB) == 2;
    FragmentAddress<true, EA, SmemA, Cfg::a_k_major> const addr_a(smem_a, m0, lane);
    FragmentAddress<false, EB, SmemB, Cfg::b_k_major> const addr_b(smem_b, n0, lane);
    auto fragments = [&](auto& ra, auto& rb, int stage, int ks) {
      if constexpr (fast_a) load_fragments_at<true, EA, SmemA, Cfg::a_k_major>(ra, addr_a, stage * stage_bytes_a, ks);
      else load_fragments<true, EA, SmemA, false>(ra, smem_a + stage * SmemA::size, m0, ks * Traits::K, lane);
      if constexpr (fast_b) load_fragments_at<false, EB, SmemB, Cfg::b_k_major>(rb, addr_b, stage * stage_bytes_b, ks);
      else load_fragments<false, EB, SmemB, false>(rb, smem_b + stage * SmemB::size, n0, ks * Traits::K, lane);
    };
    TESSERA_UNROLL
    for (int i = 0; i < Tile::c_values; ++i) acc[i] = Acc(0);
    int read_stage = 0;
    fragments(fa[0], fb[0], 0, 0);
    for (int kt = 0; kt < k_tiles; ++kt) {
      TESSERA_UNROLL
      for (int ks = 0; ks < KS; ++ks) {
        if (ks == KS - 1) {
          Pipe::handover(load, kt, k_tiles, read_stage);
          read_stage = read_stage + 1 == Stages ? 0 : read_stage + 1;
        }
        fragments(fa[(ks + 1) % 2], fb[(ks + 1) % 2], read_stage, (ks + 1) % KS);
        TESSERA_UNROLL
        for (int am = 0; am < AtomsM; ++am)
          TESSERA_UNROLL
          for (int an = 0; an < AtomsN; ++an) {
            Acc(&c)[4] = *reinterpret_cast<Acc(*)[4]>(&acc[4 * (am + AtomsM * an)]);
            Traits::Op::fma(c, fa[ks % 2][am], fb[ks % 2][an], c);
          }
      }
    }
  }

  // The epilogue. Value i of thread t sits at (row0(t) + value_row(i), col0(t) + value_col(i)):
  // the block's C layout is a sum of a thread part and a value part that never carry into each
  // other (both stay inside the tile; tests/unit/tile checks it).
  TESSERA_HD static constexpr int value_row(int i) { return int(Tile::c_layout()(0, i)) % BM; }
  TESSERA_HD static constexpr int value_col(int i) { return int(Tile::c_layout()(0, i)) / BM; }

  // Each warp stages its accumulators through shared memory, in rounds of RR rows of its WM x WN
  // tile (one round when the stages' memory holds the whole tile), and reads them back four
  // contiguous elements of D per lane: the chain runs in a loop over those quads (one copy of the
  // chain's code, not one per accumulator: compile time), and the stores are 4-element vectors
  // that consecutive lanes place side by side (full sectors). Rows are padded by 8 floats, so
  // that the 8-byte accumulator-pair writes of a half-warp (four rows) fall on distinct banks.
  using ED = typename Cfg::ElementD;
  static constexpr int WM = AtomsM * Traits::M, WN = AtomsN * Traits::N;
  static constexpr int stage_pitch = WN + 8;  // floats per staged row
  static constexpr int warps = Cfg::warps_m * Cfg::warps_n;
  static constexpr int stage_rounds = [] {
    int r = 1;
    while (warps * (WM / r) * stage_pitch * 4 > smem_bytes && AtomsM % (2 * r) == 0) r *= 2;
    return r;
  }();
  static constexpr int RR = WM / stage_rounds;  // rows per round
  static_assert(warps * RR * stage_pitch * 4 <= smem_bytes,
                "gemm::sm80: the epilogue's staging needs more shared memory than the pipeline has; use more Stages "
                "or a larger BlockTile K");
  static_assert(RR * WN / 4 % (4 * 32) == 0, "gemm::sm80: a round of the epilogue must be whole passes of the warp");

  TESSERA_DEVICE static void store(Params<Cfg> const& p, Acc const (&acc)[Tile::c_values], Work const& w, int tid,
                                   char* smem) {
    int const lane = tid % 32, warp = tid / 32;
    int const tm = w.tm, tn = w.tn, batch = w.batch;
    if (p.k_splits > 1) {
      int const t0 = int(Tile::c_layout()(tid, 0));
      int const row0 = tm * BM + t0 % BM, col0 = tn * BN + t0 / BM;
      TESSERA_UNROLL
      for (int i = 0; i < Tile::c_values; ++i) {
        int const row = row0 + value_row(i), col = col0 + value_col(i);
        if (row < p.m && col < p.n)
          p.partials[((std::int64_t(w.split) * p.batch_count + batch) * p.m + row) * p.n + col] = float(acc[i]);
      }
      return;
    }
    int const warp_m = warp % Cfg::warps_m, warp_n = warp / Cfg::warps_m;
    float* const region = reinterpret_cast<float*>(smem) + warp * RR * stage_pitch;
    int const l0 = int(Tile::c_layout()(lane, 0));  // the lane's origin in its warp's tile
    int const lr0 = l0 % BM, lc0 = l0 / BM;
    int const row_base = tm * BM + warp_m * WM, col_base = tn * BN + warp_n * WN;
    bool const interior = (tm + 1) * BM <= p.m && (tn + 1) * BN <= p.n;
    ED* const d = p.d + batch * p.batch_stride_d;
    // A lane's quad runs along D's contiguous dimension; stored as one vector when aligned.
    bool const row_major = p.d_col_stride == 1;
    std::int64_t const step = row_major ? p.d_col_stride : p.d_row_stride;  // between a quad's elements
    bool const vectors = step == 1 && (row_major ? p.d_row_stride : p.d_col_stride) % 4 == 0 &&
                         p.batch_stride_d % 4 == 0 && reinterpret_cast<std::uintptr_t>(p.d) % (4 * sizeof(ED)) == 0;
    struct alignas(4 * sizeof(ED)) Quad {
      ED v[4];
    };
    bool const fast = interior && row_major && vectors;  // uniform over the block
    TESSERA_UNROLL
    for (int round = 0; round < stage_rounds; ++round) {
      if (round > 0) __syncwarp();  // the previous round's reads are done
      TESSERA_UNROLL
      for (int i = 0; i < Tile::c_values; i += 2) {
        int const r = lr0 + value_row(i) - round * RR;
        if (value_row(i) / RR != round) continue;  // resolved at compile time
        *reinterpret_cast<float2*>(region + r * stage_pitch + lc0 + value_col(i)) = float2{float(acc[i]), float(acc[i + 1])};
      }
      __syncwarp();
      if (fast) {
        // The common case (an interior tile of a row-major D with aligned rows): no bounds, one
        // layout, a row pointer per round. Four quads per iteration, as below.
        ED* const base = d + std::int64_t(row_base + round * RR) * p.d_row_stride + col_base;
        TESSERA_UNROLL_N(4)
        for (int q = lane; q < RR * WN / 4; q += 32) {
          int const r = q / (WN / 4), c = (q % (WN / 4)) * 4;
          float4 const x = *reinterpret_cast<float4 const*>(region + r * stage_pitch + c);
          float const v[4] = {x.x, x.y, x.z, x.w};
          int const row = row_base + round * RR + r, col = col_base + c;
          Quad out;
          TESSERA_UNROLL
          for (int j = 0; j < 4; ++j)
            out.v[j] = epilogue::convert_output<ED>(p.epilogue(v[j], epilogue::Coord{row, col + j, batch}));
          *reinterpret_cast<Quad*>(base + r * p.d_row_stride + c) = out;
        }
        continue;
      }
      // Four quads per iteration: their operand loads (bias, residual) are in flight together.
      TESSERA_UNROLL_N(4)
      for (int q = lane; q < RR * WN / 4; q += 32) {
        // Row-major D: quads along a row, consecutive lanes side by side. Column-major: down a
        // column, consecutive lanes in consecutive columns (conflict-free reads of the stage).
        int const r = row_major ? q / (WN / 4) : (q / WN) * 4;
        int const c = row_major ? (q % (WN / 4)) * 4 : q % WN;
        float v[4];
        if (row_major) {
          float4 const x = *reinterpret_cast<float4 const*>(region + r * stage_pitch + c);
          v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
        } else {
          TESSERA_UNROLL
          for (int j = 0; j < 4; ++j) v[j] = region[(r + j) * stage_pitch + c];
        }
        int const row = row_base + round * RR + r, col = col_base + c;
        Quad out;
        bool in[4];
        TESSERA_UNROLL
        for (int j = 0; j < 4; ++j) {
          int const rj = row_major ? row : row + j, cj = row_major ? col + j : col;
          in[j] = interior || (rj < p.m && cj < p.n);  // the chain reads operands of D's extent only
          out.v[j] = epilogue::convert_output<ED>(in[j] ? p.epilogue(v[j], epilogue::Coord{rj, cj, batch}) : 0.0f);
        }
        ED* const at = d + row * p.d_row_stride + col * p.d_col_stride;
        if (vectors && in[3]) {  // the quad's last element in bounds: all four are
          *reinterpret_cast<Quad*>(at) = out;
        } else {
          TESSERA_UNROLL
          for (int j = 0; j < 4; ++j)
            if (in[j]) at[j * step] = out.v[j];
        }
      }
    }
  }
};

template <class Cfg, int VecA, int VecB>
__global__ void __launch_bounds__(Cfg::threads) gemm_kernel(Params<Cfg> const p) {
  extern __shared__ __align__(1024) char smem[];  // XOR addressing needs the tile bases aligned
  Kernel<Cfg>::template run<VecA, VecB>(p, smem);
}

}  // namespace tessera::gemm::sm80
