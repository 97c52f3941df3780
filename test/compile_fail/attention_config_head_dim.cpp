// A head dimension of 100: not a multiple of 8, so its rows are not 16-byte aligned.
// expect: attention::Config: head dimensions are multiples of 8 \(16-byte rows\) from 8 to 256
#include "tessera/attention/config.hpp"

using namespace tessera;
using Bad = attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<100>, attention::BlockTile<128, 128>, attention::Consumers<2>,
                              attention::Stages<2>>;

int main() { return Bad::D == 100 ? 0 : 1; }
