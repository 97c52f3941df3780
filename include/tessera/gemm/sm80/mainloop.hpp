// The sm80 GEMM's mainloop: a multistage cp.async pipeline (pipeline::Multistage), all stages in
// flight, over a loader that brings the BM x BK and BN x BK tiles of each k-tile into the swizzled
// stages (gemm/sm80/stage.hpp); warps load MMA fragments with ldmatrix (or element by element for
// the MN-major tf32 / int8 tiles, which ldmatrix cannot transpose) and issue mma.sync into the
// block's accumulators, laid out as the MMA tile's C layout (Tile::c_layout()). K residues are
// zero-filled by the loader; M and N residues are not copied (they feed only outputs that are
// never stored).
//
//   Acc acc[Mainloop<Cfg>::Tile::c_values];
//   Mainloop<Cfg>::run(load, k_tiles, acc, smem, tid);   // load(stage, kt): the loader's copies
//   // the stages are free: the epilogue stages D through them
// tessera-header: cuda-only
#pragma once

#include <cstdint>
#include <cstring>

#include "tessera/arch/sm80/ldmatrix.hpp"
#include "tessera/atom/copy_sm80.hpp"
#include "tessera/atom/mma_sm80.hpp"
#include "tessera/gemm/sm80/stage.hpp"
#include "tessera/pipeline/multistage.hpp"
#include "tessera/tile/mma_tile.hpp"

namespace tessera::gemm::sm80 {

template <class Cfg>
struct Mainloop {
  using Stage = StageLayout<Cfg>;
  using EA = typename Cfg::ElementA;
  using EB = typename Cfg::ElementB;
  using Acc = typename Cfg::ElementAccumulator;
  using Traits = atom::MmaTraits<typename Cfg::MmaOp>;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, Stages = Cfg::stages;
  // The block's MMA tile: warps_m x warps_n warps of AtomsM x AtomsN atoms each.
  using Tile = tile::MmaTile<typename Cfg::MmaOp, Cfg::warps_m, Cfg::warps_n, BM / (Cfg::warps_m * Traits::M),
                             BN / (Cfg::warps_n * Traits::N)>;
  static constexpr int AtomsM = Tile::atoms_m, AtomsN = Tile::atoms_n;
  static constexpr int KSteps = BK / Traits::K;  // MMA k-steps per k-tile
  using SmemA = typename Stage::SmemA;
  using SmemB = typename Stage::SmemB;
  static constexpr int stage_bytes_a = Stage::stage_bytes_a, stage_bytes_b = Stage::stage_bytes_b;

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

  // The whole pipeline over k_tiles k-tiles: the prologue's loads, the k-tiles, and the drain
  // that leaves every stage free (the epilogue stages D through them). load(stage, kt) issues the
  // loader's copies of k-tile kt into `stage` (gemm/sm80/tiled_loader.hpp).
  //
  // Fragments are double-buffered in registers: the loads of k-step s + 1 are issued before the
  // MMAs of s. The handover to the next stage (a barrier, then the refill of the stage just
  // finished) sits before the last k-step's MMAs, whose fragments are already in registers, so
  // that the MMAs cover the barrier; the refill goes out before the next tile's fragment loads.
  template <class Load>
  TESSERA_DEVICE static void run(Load& load, int const k_tiles, Acc (&acc)[Tile::c_values], char* smem, int tid) {
    using Pipe = pipeline::Multistage<Stages>;
    Pipe::prologue(load, k_tiles);
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
    Pipe::drain();  // the stages are free: the epilogue stages D through them
  }
};

}  // namespace tessera::gemm::sm80
