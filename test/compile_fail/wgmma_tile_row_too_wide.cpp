// A K-major tile of 128 bf16 per row (256 bytes) is wider than wgmma's largest swizzle span.
// expect: tile::k_major_descriptor: a K-major wgmma tile's rows must be one 32-, 64- or 128-byte swizzle span; use BlockTile K = 16, 32 or 64 for 16-bit types
#include "tessera/core/numeric_types.hpp"
#include "tessera/tile/wgmma_tile.hpp"

int main() {
  auto const d = tessera::tile::k_major_descriptor<tessera::tile::SwizzledTile<tessera::bfloat16_t, 64, 128>>(0);
  return int(d.bits & 1);
}
