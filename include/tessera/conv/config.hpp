// conv::Config: a convolution's types, direction and tiles, as gemm::Config holds a GEMM's; its
// Gemm is the gemm::Config whose kernel pieces run it (only the operand loader differs).
//
//   using Cfg = conv::Config<arch::Sm80, bfloat16_t, bfloat16_t, bfloat16_t, float, conv::Fprop,
//                            gemm::BlockTile<128, 128, 32>, gemm::Warps<2, 2>, gemm::Stages<3>,
//                            epilogue::Chain<epilogue::Bias<epilogue::PerColumn, bfloat16_t>, epilogue::Relu>>;
//
// Fprop's GEMM reads the activations as A (channels contiguous: K-major rows) and the KTRSC
// filters as B (a filter's T R S C values contiguous: K-major columns), and writes Y as row-major
// D (output pixels by channels): a TN GEMM. Dgrad's and Wgrad's are in conv/implicit_gemm.hpp.
// An AMD Config (arch::Gfx90a, arch::Gfx940; Warps<M, N> wavefronts, Stages<2>) runs the gfx9
// kernel under hipcc (conv/gfx9/conv.hpp).
#pragma once

#include <type_traits>

#include "tessera/conv/problem.hpp"
#include "tessera/core/matrix_layout.hpp"
#include "tessera/epilogue/chain.hpp"
#include "tessera/gemm/config.hpp"

namespace tessera::conv {

template <class Dir>
inline constexpr bool is_direction = std::is_same_v<Dir, Fprop> || std::is_same_v<Dir, Dgrad> || std::is_same_v<Dir, Wgrad>;

template <class Arch_, class ElementX_, class ElementW_, class ElementY_, class ElementAccumulator_, class Direction_, class Tile_,
          class Warps_, class Stages_, class Epilogue_ = epilogue::Identity>
struct Config {
  static_assert(is_direction<Direction_>, "conv::Config: the 6th parameter is the direction; use conv::Fprop, conv::Dgrad or conv::Wgrad");
  using Arch = Arch_;
  using ElementX = ElementX_;
  using ElementW = ElementW_;
  using ElementY = ElementY_;
  using Direction = Direction_;
  using Epilogue = Epilogue_;
  static constexpr conv::Direction direction = std::is_same_v<Direction_, Dgrad>   ? conv::Direction::kDgrad
                                               : std::is_same_v<Direction_, Wgrad> ? conv::Direction::kWgrad
                                                                                   : conv::Direction::kFprop;
  // The GEMM whose pieces run it (conv/implicit_gemm.hpp): Fprop X (K-major) x W (K-major) -> Y;
  // Dgrad dY (K-major) x W (N-major) -> dX; Wgrad dY (M-major) x X (N-major) -> dW.
  using Gemm = std::conditional_t<
      std::is_same_v<Direction_, Dgrad>,
      gemm::Config<Arch_, ElementY_, RowMajor, ElementW_, RowMajor, ElementX_, ElementAccumulator_, Tile_, Warps_, Stages_, Epilogue_>,
      std::conditional_t<std::is_same_v<Direction_, Wgrad>,
                         gemm::Config<Arch_, ElementY_, ColumnMajor, ElementX_, RowMajor, ElementW_, ElementAccumulator_, Tile_, Warps_,
                                      Stages_, Epilogue_>,
                         gemm::Config<Arch_, ElementX_, RowMajor, ElementW_, ColumnMajor, ElementY_, ElementAccumulator_, Tile_, Warps_,
                                      Stages_, Epilogue_>>>;

  // (gemm::Config checks the tiles, warpgroups and clusters: the Hopper kernel's loaders share
  // tiles across a cluster as the GEMM's do, conv/sm90/im2col.hpp.)
  static constexpr bool hopper = Gemm::warp_specialized;
};

// conv::Conv<Cfg>::Arguments (the CUDA and the gfx9 Conv alike): the problem and the three
// tensors; the direction reads two and writes the third: Fprop reads x and w and writes y; Dgrad
// reads y (dY) and w and writes x (dX); Wgrad reads y (dY) and x and writes w (dW).
template <class Cfg>
struct Arguments {
  Problem problem;
  typename Cfg::ElementX* x = nullptr;
  typename Cfg::ElementW* w = nullptr;
  typename Cfg::ElementY* y = nullptr;
  typename Cfg::Epilogue epilogue{};
  // The GEMM's K in this many slices, summed through the workspace (workspace_size). 0: chosen
  // by split_k_for, enough slices for the output tiles to fill the GPU: what Wgrad wants, whose
  // K (N Z P Q) is long and output (K x T R S C / g) small.
  int split_k = 1;
  // Per-tensor scales (device pointers to one float each; null: 1), for fp8 tensors (the Hopper
  // kernel only; other kernels refuse them): an input's scale multiplies its values, the written
  // tensor's multiplies the result (after the chain), and *amax (when not null; zeroed first)
  // receives the largest |result| before the written tensor's scale, as cuBLASLt's and cuDNN's
  // fp8 operations define them.
  float const* scale_x = nullptr;
  float const* scale_w = nullptr;
  float const* scale_y = nullptr;
  float* amax = nullptr;
};

}  // namespace tessera::conv
