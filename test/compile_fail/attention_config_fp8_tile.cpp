// fp8 attention with blocks of 176 keys: P V's 32-key steps need V^T rows of whole 128-key spans.
// expect: attention::Config: fp8 attention takes head dimensions D a multiple of 16 and Dv of 128
#include "tessera/attention/config.hpp"

using namespace tessera;
using Bad = attention::Config<arch::Sm90, float8_e4m3_t, attention::HeadDim<128>, attention::BlockTile<128, 176>, attention::Consumers<2>,
                              attention::Stages<2>>;

int main() { return Bad::fp8 ? 0 : 1; }
