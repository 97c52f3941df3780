// An fp8 Dgrad on the Hopper kernel: its GEMM reads the filters MN-major, which fp8 wgmma cannot (fp8 runs Fprop).
// expect: gemm::Config: an MN-major operand \(ColumnMajor A or RowMajor B\) of the sm90 kernel must be a 16-bit type
#include "tessera/conv/config.hpp"

using namespace tessera;
using Bad = conv::Config<arch::Sm90, float8_e4m3_t, float8_e4m3_t, float8_e4m3_t, float, conv::Dgrad, gemm::BlockTile<128, 128, 128>,
                         gemm::Warpgroups<2>, gemm::Stages<4>>;

int main() { return Bad::hopper ? 0 : 1; }
