// The Hopper convolution's operand loaders, one per direction. Each plugs into the unchanged
// gemm::sm90::Kernel<GemmCfg, Loader> (the loader contract: gemm/sm90/tiled_loader.hpp) with the
// GEMM of conv/implicit_gemm.hpp; groups are the work grid's batch entries. The gathered operand
// is TMA im2col loads: a box of pixels (walking the convolution's bounding box W first, then H,
// D and N, padding and pixels past the last image zero-filled by TMA) of 64 channels (one 128-byte
// swizzle span), read through a filter tap's offsets. The other operand is the GEMM's tiled load.
//
//   Fprop  A = X im2col: BM output pixels' input pixels through the k-tile's tap (K-major)
//          B = W tiled, K-major: the k-tile's BK columns (T R S C / g) of BN filters
//   Dgrad  A = dY im2col: BM input pixels' output pixels through the k-tile's tap, run backwards as
//          a unit-stride Fprop over dY with the flipped filter (each dimension padded by
//          dilation (filter - 1) - padding) (K-major)
//          B = W tiled, MN-major: BK filters of the k-tile's tap, BN channels each
//   Wgrad  A = dY tiled, MN-major: BK output pixels of BM filters
//          B = X im2col: BK output pixels' input pixels, a box of 64 channels of one tap for each
//          64 columns (tap, channel) of the tile (MN-major)
//
// Needs 16-bit types with BlockTile K = 64; Fprop C / g, Dgrad K / g multiples of BK (a k-tile is
// one tap) and Wgrad C / g a multiple of 64 (a box is one tap); strides of at most 8 (TMA's
// traversal strides) and Dgrad unit strides; padding and dilated filters within TMA's corner and
// offset ranges. make() says which is wrong, with the fix. The pieces they share: conv/sm90/im2col.hpp.
// tessera-header: cuda-only
#pragma once

#include <type_traits>

#include "tessera/conv/problem.hpp"
#include "tessera/conv/sm90/dgrad_loader.hpp"
#include "tessera/conv/sm90/fprop_loader.hpp"
#include "tessera/conv/sm90/wgrad_loader.hpp"

namespace tessera::conv::sm90 {

template <class GemmCfg, class Dir>
using Loader = std::conditional_t<std::is_same_v<Dir, Fprop>, FpropLoader<GemmCfg>,
                                  std::conditional_t<std::is_same_v<Dir, Dgrad>, DgradLoader<GemmCfg>, WgradLoader<GemmCfg>>>;

}  // namespace tessera::conv::sm90
