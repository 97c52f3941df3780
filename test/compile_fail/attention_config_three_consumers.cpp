// Three consumers at head dim 128: S, P and O of 64 x 128 do not fit a thread's 160 registers.
// expect: attention::Config: three consumers have 160 registers a thread, too few for S, P and O
#include "tessera/attention/config.hpp"

using namespace tessera;
using Bad = attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<192, 128>, attention::Consumers<3>,
                              attention::Stages<2>>;

int main() { return Bad::consumers == 3 ? 0 : 1; }
