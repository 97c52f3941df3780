// Turns with one consumer: there is no other warpgroup to take turns with.
// expect: attention::Config: turns are taken between two consumers. use Consumers<2, true> or no turns
#include "tessera/attention/config.hpp"

using namespace tessera;
using Bad = attention::Config<arch::Sm90, bfloat16_t, attention::HeadDim<128>, attention::BlockTile<64, 128>, attention::Consumers<1, true>,
                              attention::Stages<2>>;

int main() { return Bad::turns ? 0 : 1; }
