// attention::Attention on the sm80 kernel (mma.sync; run here on the H100) against the host
// reference in double (test/support/attention_reference.hpp, through attention_check.hpp): random
// normal Q, K, V; O and LSE poisoned; lengths 1, 3, 113, 127..129, 1023, 1024 and sq != sk both
// ways, zero keys; GQA 1, 4, 8 and MQA; BSHD and BHSD; head dimensions 64, 96, 128, (192, 128),
// 256 and odd multiples of 8 (8, 40, (72, 40)); 1, 2, 4 and 8 warps, 2 to 4 stages, blocks of 16
// to 128 keys; bf16 and fp16; every mask and score stage alone and chained, and one of the test's
// own (rows that see no key: O = 0, LSE = -inf); the refusals.
#include <string>
#include <vector>

#include "attention_check.hpp"
#include "tessera/attention/attention.hpp"
#include "tessera/attention/masks.hpp"

using namespace tessera;
using namespace tessera::attention;
using tessera::test::DeviceBuffer;
using tessera::test::dense;
using tessera::test::run_attention;

namespace {

template <int D, int Dv = D, class Chain = NoMask, int Warps_ = 4, int BKV = 64, int S = 2, class E = bfloat16_t>
using Cfg80 = Config<arch::Sm80, E, HeadDim<D, Dv>, BlockTile<16 * Warps_, BKV>, Warps<Warps_>, Stages<S>, Chain>;

}  // namespace

TEST_CASE("attention sm80: no mask, lengths, GQA and MQA, layouts", "[gpu][attention][sm80]") {
  test::require_gpu();
  using Cfg = Cfg80<128>;
  for (int len : {1, 3, 113, 127, 128, 129, 1023, 1024}) run_attention<Cfg>(dense(1, 2, 2, len, len, 128));
  run_attention<Cfg>(dense(2, 4, 1, 113, 127, 128));                               // MQA, neither a multiple of the tiles
  run_attention<Cfg>(dense(1, 4, 1, 129, 1023, 128, attention::Layout::kBHSD));   // sq < sk
  run_attention<Cfg>(dense(2, 8, 2, 1024, 3, 128));                                // GQA 4, sq > sk
  run_attention<Cfg>(dense(1, 8, 1, 300, 500, 128, attention::Layout::kBHSD));     // GQA 8, BHSD
  run_attention<Cfg>(dense(1, 2, 2, 256, 0, 128));                                 // no keys: O = 0, LSE = -inf
  run_attention<Cfg>(dense(3, 16, 4, 127, 384, 128));                              // many blocks
}

TEST_CASE("attention sm80: head dimensions", "[gpu][attention][sm80]") {
  test::require_gpu();
  run_attention<Cfg80<64>>(dense(2, 4, 4, 300, 300, 64));
  run_attention<Cfg80<96>>(dense(1, 4, 2, 200, 257, 96, attention::Layout::kBHSD));
  run_attention<Cfg80<192, 128>>(dense(1, 2, 2, 129, 257, 192, attention::Layout::kBSHD, 128));
  run_attention<Cfg80<256, 256, NoMask, 4, 32>>(dense(1, 2, 1, 200, 333, 256));
  run_attention<Cfg80<256, 256, NoMask, 4, 64>>(dense(1, 2, 2, 129, 64, 256));
  run_attention<Cfg80<8>>(dense(1, 2, 2, 77, 130, 8));                                      // one chunk, Q K^T k padded to 16
  run_attention<Cfg80<40>>(dense(2, 2, 1, 100, 100, 40, attention::Layout::kBHSD));
  run_attention<Cfg80<72, 40>>(dense(1, 3, 3, 65, 190, 72, attention::Layout::kBSHD, 40));  // an odd number of V atoms
}

TEST_CASE("attention sm80: warps, stages, blocks of keys and fp16", "[gpu][attention][sm80]") {
  test::require_gpu();
  run_attention<Cfg80<128, 128, NoMask, 8, 64>>(dense(1, 2, 2, 300, 517, 128));
  run_attention<Cfg80<64, 64, NoMask, 1, 16>>(dense(1, 2, 2, 45, 70, 64));
  run_attention<Cfg80<64, 64, NoMask, 2, 128, 3>>(dense(2, 2, 1, 100, 700, 64));
  run_attention<Cfg80<128, 128, NoMask, 4, 32, 4>>(dense(1, 2, 2, 200, 333, 128));
  run_attention<Cfg80<128, 128, NoMask, 4, 64, 3>>(dense(1, 2, 2, 100, 64, 128));  // fewer blocks than stages
  run_attention<Cfg80<128, 128, NoMask, 4, 64, 2, half_t>>(dense(2, 4, 2, 257, 300, 128));
  run_attention<Cfg80<256, 256, NoMask, 8, 32, 2, half_t>>(dense(1, 2, 2, 150, 150, 256, attention::Layout::kBHSD));
}

TEST_CASE("attention sm80: masks and score stages, alone and chained", "[gpu][attention][sm80]") {
  test::require_gpu();
  using BR = ScoreChain<Causal<BottomRight>>;
  run_attention<Cfg80<128, 128, BR>>(dense(1, 2, 2, 300, 300, 128));
  run_attention<Cfg80<128, 128, BR>>(dense(1, 2, 1, 100, 700, 128));
  run_attention<Cfg80<128, 128, BR>>(dense(1, 2, 2, 700, 100, 128));  // the first 600 queries see no key
  run_attention<Cfg80<64, 64, BR, 8>>(dense(1, 8, 8, 1024, 1023, 64, attention::Layout::kBHSD));
  using TL = ScoreChain<Causal<TopLeft>>;
  run_attention<Cfg80<128, 128, TL>>(dense(2, 2, 2, 200, 333, 128));
  run_attention<Cfg80<96, 96, TL>>(dense(1, 2, 2, 333, 200, 96));
  using Window = ScoreChain<SlidingWindow<BottomRight>>;
  run_attention<Cfg80<128, 128, Window>>(dense(1, 2, 2, 500, 500, 128), Window{{64, 0}}, Window{{64, 0}});
  run_attention<Cfg80<128, 128, Window>>(dense(1, 2, 2, 500, 700, 128), Window{{100, 30}}, Window{{100, 30}});
  using Capped = ScoreChain<Softcap>;
  run_attention<Cfg80<128, 128, Capped>>(dense(1, 2, 2, 257, 257, 128), Capped{{2.0f}}, Capped{{2.0f}});
  using CappedCausal = ScoreChain<Softcap, Causal<BottomRight>>;
  run_attention<Cfg80<128, 128, CappedCausal>>(dense(1, 2, 2, 257, 257, 128), CappedCausal{{2.0f}, {}}, CappedCausal{{2.0f}, {}});
  std::vector<float> const slopes{0.5f, 0.25f, 0.125f, 0.0625f};
  DeviceBuffer<float> dslopes(slopes);
  using Linear = ScoreChain<Alibi<BottomRight>>;
  run_attention<Cfg80<128, 128, Linear>>(dense(1, 4, 4, 130, 260, 128), Linear{{dslopes.get()}}, Linear{{slopes.data()}});
  using LinearWindow = ScoreChain<Alibi<TopLeft>, SlidingWindow<TopLeft>>;
  run_attention<Cfg80<64, 64, LinearWindow>>(dense(1, 4, 2, 300, 300, 64), LinearWindow{{dslopes.get()}, {50, 50}},
                                             LinearWindow{{slopes.data()}, {50, 50}});
  using Docs = ScoreChain<test::SameDocument>;
  run_attention<Cfg80<128, 128, Docs>>(dense(1, 2, 2, 300, 300, 128));
  using DocsCausal = ScoreChain<test::SameDocument, Causal<TopLeft>>;
  run_attention<Cfg80<128, 128, DocsCausal>>(dense(1, 2, 2, 300, 300, 128));
}

TEST_CASE("attention sm80: refusals name the fix and launch nothing", "[gpu][attention][sm80]") {
  test::require_gpu();
  test::Refusals<Cfg80<128>> r;
  r.common();
  CHECK_THAT(r.message(dense(1, 2, 2, 64, 64, 100)), Catch::Contains("pad the head dimension up to 104"));
  CHECK_THAT(r.message(dense(1, 65536, 1, 1, 1, 128)), Catch::Contains("at most 65535 heads"));
  std::vector<int> const cu{0, 64};
  DeviceBuffer<int> dcu(cu);
  CHECK_THAT(r.message(Problem::variable_lengths(1, 2, 2, dcu.get(), dcu.get(), 64, 64, 64, 64, 128)),
             Catch::Contains("variable lengths (cu_seqlens) are not in the sm80 kernel yet"));
  r.nothing_written();
}
