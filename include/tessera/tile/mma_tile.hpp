// MmaTile: an MMA atom repeated over a warp's region (AtomsM x AtomsN atoms per warp) and warps
// arranged over the block's tile (WarpsM x WarpsN), as thread-value layouts of the whole block.
//
// Thread t of the block is lane + 32 * (warp_m + WarpsM * warp_n). Its values are numbered
// (atom value, atom_m, atom_n), so that the accumulators of atom (am, an) are the atom's C values
// at offset c_values_per_atom * (am + AtomsM * an) of a flat register array.
//   c_layout(): (thread, value) -> m + BM * n              every C element owned exactly once
//   a_layout(): (thread, value) -> m + BM * k, one K step  each A element held by WarpsN threads
//   b_layout(): (thread, value) -> n + BN * k, one K step  each B element held by WarpsM threads
#pragma once

#include "tessera/atom/mma_atom.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/layout_algebra.hpp"

namespace tessera::tile {

template <class Op, int WarpsM, int WarpsN, int AtomsM, int AtomsN>
struct MmaTile {
  using Traits = atom::MmaTraits<Op>;
  static constexpr int atom_m = Traits::M, atom_n = Traits::N, atom_k = Traits::K;
  static constexpr int warps_m = WarpsM, warps_n = WarpsN, atoms_m = AtomsM, atoms_n = AtomsN;
  static constexpr int BM = WarpsM * AtomsM * atom_m;  // the block's tile
  static constexpr int BN = WarpsN * AtomsN * atom_n;
  static constexpr int warps = WarpsM * WarpsN;
  static constexpr int threads = 32 * warps;
  static constexpr int a_values_per_atom = atom_m * atom_k / 32;
  static constexpr int b_values_per_atom = atom_n * atom_k / 32;
  static constexpr int c_values_per_atom = atom_m * atom_n / 32;
  static constexpr int c_values = c_values_per_atom * AtomsM * AtomsN;  // accumulators per thread

  TESSERA_HD static constexpr auto c_layout() {
    // The atom's (lane, value) -> m + atom_m * n, re-strided into the block's m + BM * n.
    auto atom = composition(make_layout(make_tuple(Int<atom_m>{}, Int<atom_n>{}), make_tuple(_1{}, Int<BM>{})),
                            Traits::c_layout());
    auto warp = make_layout(make_tuple(Int<WarpsM>{}, Int<WarpsN>{}),
                            make_tuple(Int<AtomsM * atom_m>{}, Int<AtomsN * atom_n * BM>{}));
    return make_layout(make_layout(layout<0>(atom), warp),
                       make_layout(layout<1>(atom), make_layout(Int<AtomsM>{}, Int<atom_m>{}),
                                   make_layout(Int<AtomsN>{}, Int<atom_n * BM>{})));
  }

  TESSERA_HD static constexpr auto a_layout() {
    auto atom = composition(make_layout(make_tuple(Int<atom_m>{}, Int<atom_k>{}), make_tuple(_1{}, Int<BM>{})),
                            Traits::a_layout());
    auto warp = make_layout(make_tuple(Int<WarpsM>{}, Int<WarpsN>{}), make_tuple(Int<AtomsM * atom_m>{}, _0{}));
    return make_layout(make_layout(layout<0>(atom), warp),
                       make_layout(layout<1>(atom), make_layout(Int<AtomsM>{}, Int<atom_m>{})));
  }

  TESSERA_HD static constexpr auto b_layout() {
    auto atom = composition(make_layout(make_tuple(Int<atom_n>{}, Int<atom_k>{}), make_tuple(_1{}, Int<BN>{})),
                            Traits::b_layout());
    auto warp = make_layout(make_tuple(Int<WarpsM>{}, Int<WarpsN>{}), make_tuple(_0{}, Int<AtomsN * atom_n>{}));
    return make_layout(make_layout(layout<0>(atom), warp),
                       make_layout(layout<1>(atom), make_layout(Int<AtomsN>{}, Int<atom_n>{})));
  }
};

}  // namespace tessera::tile
