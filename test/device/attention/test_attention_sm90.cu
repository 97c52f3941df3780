// attention::Attention on the Hopper kernel against the host reference in double
// (test/support/attention_reference.hpp): random normal Q, K, V; O and LSE poisoned; lengths 1,
// 3, 113, 127..129, 1023 and sq != sk both ways, zero keys; GQA and MQA; BSHD and BHSD; head
// dims 64, 128, 256, (192, 128) and multiples of 8 from 8 to 248; tiles of 128 x 176 and three
// consumers, turns, fp16, both longest-first orders of causal tiles, several tiles a block with and
// without a pause between them (empty tiles and one-block tiles between); variable lengths with empty
// and length-1 sequences; fp8 with per-tensor scales; every mask and score stage, chained and one of
// the test's own (rows that see no key: O = 0, LSE = -inf); the refusals; what the parameters say
// about a tile (its sequences, lengths clipped to the problem's, its blocks of keys).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
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
using tessera::test::run_varlen;
using tessera::test::SameDocument;

namespace {

template <int D, int Dv = D, int BKV = 128, class Chain = NoMask, class C = Consumers<2>, class E = bfloat16_t>
using Cfg90 = Config<arch::Sm90, E, HeadDim<D, Dv>, BlockTile<64 * C::value, BKV>, C, Stages<2>, Chain>;

// What the kernel's parameters say about tiles (attention/sm90/params.hpp), a tile a thread.
template <class Cfg>
__global__ void tiles_of(sm90::Params<Cfg> const p, TileCoord const* coords, int n, sm90::TileInfo* info, BlockRange* ranges) {
  int const i = int(threadIdx.x);
  if (i >= n) return;
  info[i] = p.tile(coords[i]);
  ranges[i] = p.range(info[i]);
}

}  // namespace

TEST_CASE("attention sm90: no mask, lengths, GQA and MQA, layouts", "[gpu][attention][sm90]") {
  test::require_gpu();
  using Cfg = Cfg90<128>;
  run_attention<Cfg>(dense(1, 2, 2, 128, 128, 128));
  run_attention<Cfg>(dense(2, 4, 2, 113, 127, 128));    // GQA 2, neither a multiple of the tiles
  run_attention<Cfg>(dense(1, 1, 1, 1, 1, 128));
  run_attention<Cfg>(dense(1, 3, 1, 129, 1023, 128));   // MQA
  run_attention<Cfg>(dense(2, 2, 2, 1024, 3, 128));     // sq > sk
  run_attention<Cfg>(dense(1, 8, 1, 300, 500, 128, attention::Layout::kBHSD));  // GQA 8, BHSD
  run_attention<Cfg>(dense(1, 2, 2, 256, 0, 128));      // no keys: O = 0, LSE = -inf
  run_attention<Cfg>(dense(3, 16, 4, 127, 384, 128));   // more tiles than multiprocessors
}

TEST_CASE("attention sm90: head dimensions 64, 256 and (192, 128)", "[gpu][attention][sm90]") {
  test::require_gpu();
  run_attention<Cfg90<64>>(dense(2, 4, 4, 300, 300, 64));
  run_attention<Cfg90<256, 256, 64>>(dense(1, 2, 1, 200, 333, 256));
  run_attention<Cfg90<192, 128>>(dense(1, 2, 2, 129, 257, 192, attention::Layout::kBSHD, 128));
}

TEST_CASE("attention sm90: head dimensions that are multiples of 8 but not of 64", "[gpu][attention][sm90]") {
  test::require_gpu();
  using Causal = ScoreChain<attention::Causal<BottomRight>>;
  run_attention<Cfg90<8>>(dense(1, 2, 1, 200, 133, 8));
  run_attention<Cfg90<40, 40, 128, Causal>>(dense(2, 2, 2, 77, 300, 40));
  run_attention<Cfg90<56, 56, 128, NoMask, Consumers<3>>>(dense(1, 3, 1, 250, 250, 56, attention::Layout::kBHSD));
  run_attention<Cfg90<72>>(dense(1, 3, 3, 250, 250, 72));
  run_attention<Cfg90<96>>(dense(2, 4, 2, 129, 257, 96));
  run_attention<Cfg90<96, 96, 128, Causal>>(dense(1, 2, 2, 513, 513, 96));
  run_attention<Cfg90<96, 96, 176>>(dense(1, 3, 1, 400, 700, 96));  // V in 32-column spans, O by the threads
  run_attention<Cfg90<136, 72, 64>>(dense(1, 2, 2, 100, 190, 136, attention::Layout::kBSHD, 72));
  run_attention<Cfg90<200, 200, 64, Causal>>(dense(1, 2, 1, 300, 301, 200));
  run_attention<Cfg90<248, 248, 64>>(dense(1, 1, 1, 65, 129, 248));
}

TEST_CASE("attention sm90: masks and score stages, alone and chained", "[gpu][attention][sm90]") {
  test::require_gpu();
  using BR = ScoreChain<Causal<BottomRight>>;
  run_attention<Cfg90<128, 128, 128, BR>>(dense(1, 2, 2, 300, 300, 128));
  run_attention<Cfg90<128, 128, 128, BR>>(dense(1, 2, 1, 100, 700, 128));
  run_attention<Cfg90<128, 128, 128, BR>>(dense(1, 2, 2, 700, 100, 128));  // the first 600 queries see no key
  // Many tiles a block, most of them without a key (nothing loaded, O = 0) between ones with keys.
  run_attention<Cfg90<128, 128, 128, BR>>(dense(1, 48, 8, 1900, 100, 128));
  using TL = ScoreChain<Causal<TopLeft>>;
  run_attention<Cfg90<128, 128, 128, TL>>(dense(2, 2, 2, 200, 333, 128));
  using Window = ScoreChain<SlidingWindow<BottomRight>>;
  run_attention<Cfg90<128, 128, 128, Window>>(dense(1, 2, 2, 500, 500, 128), Window{{64, 0}}, Window{{64, 0}});
  run_attention<Cfg90<128, 128, 128, Window>>(dense(1, 2, 2, 500, 700, 128), Window{{100, 30}}, Window{{100, 30}});
  using Capped = ScoreChain<Softcap, Causal<BottomRight>>;
  run_attention<Cfg90<128, 128, 128, Capped>>(dense(1, 2, 2, 257, 257, 128), Capped{{2.0f}, {}}, Capped{{2.0f}, {}});
  using Linear = ScoreChain<Alibi<BottomRight>>;
  std::vector<float> const slopes{0.5f, 0.25f, 0.125f, 0.0625f};
  DeviceBuffer<float> dslopes(slopes);
  run_attention<Cfg90<128, 128, 128, Linear>>(dense(1, 4, 4, 130, 260, 128), Linear{{dslopes.get()}}, Linear{{slopes.data()}});
  using Docs = ScoreChain<SameDocument, Causal<TopLeft>>;
  run_attention<Cfg90<128, 128, 128, Docs>>(dense(1, 2, 2, 300, 300, 128));
}

TEST_CASE("attention sm90: tiles, three consumers, turns and the longest-first orders", "[gpu][attention][sm90]") {
  test::require_gpu();
  using Causal = ScoreChain<attention::Causal<BottomRight>>;
  // 128 x 176: blocks of keys that are not a power of two; the last one partial.
  run_attention<Cfg90<128, 128, 176>>(dense(2, 2, 1, 400, 500, 128));
  run_attention<Cfg90<128, 128, 176, Causal>>(dense(1, 4, 2, 353, 353, 128));
  // Three consumers (192 x 128) at head dim 64, with and without masks; fp16.
  run_attention<Cfg90<64, 64, 128, NoMask, Consumers<3>>>(dense(2, 3, 3, 385, 200, 64));
  run_attention<Cfg90<64, 64, 128, Causal, Consumers<3>>>(dense(1, 4, 4, 577, 577, 64, attention::Layout::kBHSD));
  run_attention<Cfg90<64, 64, 128, NoMask, Consumers<2>, half_t>>(dense(1, 2, 2, 255, 257, 64));
  // Turns between the two consumers, with blocks that skip and tiles without keys.
  run_attention<Cfg90<128, 128, 128, Causal, Consumers<2, true>>>(dense(1, 2, 2, 700, 300, 128));
  run_attention<Cfg90<128, 128, 128, NoMask, Consumers<2, true>>>(dense(3, 2, 2, 129, 1023, 128));
  // Causal tiles longest first: more tiles than blocks with few query blocks a head (tiles numbered
  // a head at a time), and a long sequence of one head (query blocks slowest).
  run_attention<Cfg90<128, 128, 128, Causal>>(dense(5, 16, 4, 1000, 1000, 128));
  run_attention<Cfg90<128, 128, 128, Causal>>(dense(1, 1, 1, 4500, 4500, 128));
}

TEST_CASE("attention sm90: variable lengths, empty and length-1 sequences", "[gpu][attention][sm90]") {
  test::require_gpu();
  using Causal = ScoreChain<attention::Causal<BottomRight>>;
  std::vector<int> const lq{300, 0, 1, 129, 1023, 7, 128}, lk{300, 5, 1, 0, 1024, 200, 3};  // sq = 0, sk = 0, sq != sk both ways
  run_varlen<Cfg90<128>>(4, 2, lq, lk);
  run_varlen<Cfg90<128, 128, 128, Causal>>(4, 4, lq, lk);
  run_varlen<Cfg90<128, 128, 176, Causal>>(2, 1, lq, lk);
  run_varlen<Cfg90<64, 64, 128, Causal, Consumers<3>>>(3, 1, lq, lk);
  using Window = ScoreChain<SlidingWindow<BottomRight>>;
  run_varlen<Cfg90<256, 256, 64, Window>>(2, 2, {1, 77, 500}, {1, 90, 450}, Window{{50, 10}}, Window{{50, 10}});
  // Many sequences (more than a grid's blocks), one block each or less.
  std::vector<int> many_q, many_k;
  for (int i = 0; i < 300; ++i) many_q.push_back(1 + i * 37 % 190), many_k.push_back(1 + i * 53 % 250);
  run_varlen<Cfg90<128, 128, 128, Causal>>(2, 2, many_q, many_k);
}

TEST_CASE("attention sm90: a tile's sequences, clipped lengths and blocks of keys from the parameters", "[gpu][attention][sm90]") {
  test::require_gpu();
  using Cfg = Cfg90<128, 128, 128, ScoreChain<attention::Causal<BottomRight>>>;  // 128 x 128 tiles
  struct Want {
    TileCoord at;
    sm90::TileInfo info;
    BlockRange range;
  };
  auto const check = [](sm90::Params<Cfg> const& p, std::vector<Want> const& want) {
    std::vector<TileCoord> coords;
    for (Want const& w : want) coords.push_back(w.at);
    DeviceBuffer<TileCoord> dcoords(coords);
    DeviceBuffer<sm90::TileInfo> info(want.size());
    DeviceBuffer<BlockRange> ranges(want.size());
    tiles_of<Cfg><<<1, 32>>>(p, dcoords.get(), int(want.size()), info.get(), ranges.get());
    TESSERA_CUDA_REQUIRE_LAUNCH();
    TESSERA_CUDA_REQUIRE(cudaDeviceSynchronize());
    std::vector<sm90::TileInfo> const got = info.to_host();
    std::vector<BlockRange> const got_ranges = ranges.to_host();
    for (std::size_t i = 0; i < want.size(); ++i) {
      sm90::TileInfo const &g = got[i], &w = want[i].info;
      INFO("tile " << i);
      CHECK((g.b == w.b && g.h == w.h && g.hk == w.hk && g.q0 == w.q0 && g.q_len == w.q_len && g.k_len == w.k_len));
      CHECK((g.mb == w.mb && g.q_start == w.q_start && g.k_start == w.k_start));
      CHECK(got_ranges[i].first == want[i].range.first);
      CHECK(got_ranges[i].last == want[i].range.last);
    }
  };
  // Fixed lengths (300 queries, 500 keys; bottom-right: query q sees keys up to q + 200), 4 heads
  // over 2 K/V heads. The last tile is clipped to the queries there are.
  sm90::Params<Cfg> p{};
  p.batch = 2, p.heads = 4, p.group = 2, p.q_len = 300, p.k_len = 500, p.q_blocks = 3;
  check(p, {{{0, 0, 0}, {0, 0, 0, 0, 300, 500, 0, 0, 0}, {0, 3}},       // queries 0-127: keys up to 327
            {{1, 3, 2}, {1, 3, 1, 256, 300, 500, 1, 0, 0}, {0, 4}}});   // queries 256-299: every key
  // Variable lengths at the offsets of the packed tokens: 100 / 0 / 300 queries, 50 / 200 / 0 keys.
  std::vector<int> const cu_q{0, 100, 100, 400}, cu_k{0, 50, 250, 250};
  DeviceBuffer<int> dq(cu_q), dk(cu_k);
  p.batch = 3, p.q_len = 300, p.k_len = 200, p.q_blocks = 3;
  p.cu_q = dq.get(), p.cu_k = dk.get(), p.total_q = 400, p.total_k = 250;
  check(p, {{{0, 1, 0}, {0, 1, 0, 0, 100, 50, 0, 0, 0}, {0, 1}},        // queries 50-99 see keys 0-49
            {{1, 2, 0}, {1, 2, 1, 0, 0, 200, 0, 100, 50}, {0, 0}},      // no query: no block
            {{2, 0, 2}, {2, 0, 0, 256, 300, 0, 0, 100, 250}, {0, 0}}});  // no key: no block
  // Offsets that break Problem::variable_lengths's contract: the lengths are clipped to the
  // longest the problem states and to the tokens it holds, never past them.
  std::vector<int> const bad_q{0, 100, 100, 520}, bad_k{0, 60, 250, 250};
  DeviceBuffer<int> bq(bad_q), bk(bad_k);
  p.cu_q = bq.get(), p.cu_k = bk.get(), p.q_len = 350, p.k_len = 40;
  check(p, {{{0, 0, 0}, {0, 0, 0, 0, 100, 40, 0, 0, 0}, {0, 1}},        // 60 keys, 40 the longest
            {{2, 1, 0}, {2, 1, 0, 0, 300, 0, 0, 100, 250}, {0, 0}}});   // 420 queries, 300 in the tokens
}

TEST_CASE("attention sm90: fp8 e4m3 with per-tensor scales", "[gpu][attention][sm90]") {
  test::require_gpu();
  using Causal = ScoreChain<attention::Causal<BottomRight>>;
  using E8 = float8_e4m3_t;
  // Few keys (a wrong order of V^T's keys would show against O's size) and many; causal rows see
  // 1 to all keys; GQA; BHSD; head dim 256; no keys; variable lengths.
  run_attention<Cfg90<128, 128, 128, NoMask, Consumers<2>, E8>>(dense(2, 2, 2, 100, 40, 128));
  run_attention<Cfg90<128, 128, 128, NoMask, Consumers<2>, E8>>(dense(1, 4, 2, 300, 1100, 128, attention::Layout::kBHSD));
  run_attention<Cfg90<128, 128, 128, Causal, Consumers<2>, E8>>(dense(1, 2, 1, 257, 257, 128));
  run_attention<Cfg90<256, 256, 128, Causal, Consumers<2>, E8>>(dense(1, 2, 2, 200, 333, 256));
  run_attention<Cfg90<256, 256, 128, Causal, Consumers<2>, E8>>(dense(2, 40, 8, 300, 420, 256));  // several tiles a block, back to back
  run_attention<Cfg90<64, 128, 128, NoMask, Consumers<2>, E8>>(dense(1, 2, 2, 129, 200, 64, attention::Layout::kBSHD, 128));
  run_attention<Cfg90<128, 128, 128, NoMask, Consumers<2>, E8>>(dense(1, 2, 2, 64, 0, 128));
  run_varlen<Cfg90<128, 128, 128, Causal, Consumers<2>, E8>>(2, 2, {1, 77, 300, 0}, {5, 77, 200, 3});
}

TEST_CASE("attention sm90: Config corners, strides and scales", "[gpu][attention][sm90]") {
  test::require_gpu();
  using Causal = ScoreChain<attention::Causal<BottomRight>>;
  // Three and four stages (one Q stage: O stored by the threads), one consumer (staged O),
  // turns on 128 x 176 (one Q stage).
  run_attention<Config<arch::Sm90, bfloat16_t, HeadDim<128>, BlockTile<128, 128>, Consumers<2>, Stages<3>, Causal>>(
      dense(1, 2, 2, 700, 900, 128));
  run_attention<Config<arch::Sm90, bfloat16_t, HeadDim<64>, BlockTile<128, 64>, Consumers<2>, Stages<4>>>(dense(2, 2, 1, 333, 1000, 64));
  run_attention<Config<arch::Sm90, bfloat16_t, HeadDim<128>, BlockTile<64, 128>, Consumers<1>, Stages<2>, Causal>>(
      dense(1, 3, 1, 257, 300, 128));
  run_attention<Config<arch::Sm90, bfloat16_t, HeadDim<128>, BlockTile<128, 176>, Consumers<2, true>, Stages<2>, Causal>>(
      dense(1, 2, 2, 500, 500, 128));
  // Several tiles a block, from tile to tile without a pause (one Q stage, 64 keys a block; empty
  // tiles between: bottom-right causal with sq > sk) and with one (one Q stage, 176 keys).
  static_assert(Cfg90<256, 256, 64, Causal>::across_tiles);
  run_attention<Cfg90<256, 256, 64, Causal>>(dense(1, 48, 8, 700, 330, 256));  // (query block 2: one block of keys)
  using Cap = ScoreChain<Softcap>;
  static_assert(!Cfg90<128, 128, 176, Cap>::across_tiles);
  run_attention<Cfg90<128, 128, 176, Cap>>(dense(2, 40, 8, 300, 420, 128), Cap{{5.0f}}, Cap{{5.0f}});
  // O in BHSD while Q, K and V are BSHD (the O map and the threads' stores take O's strides), and
  // a softmax scale of one's own.
  Problem p = dense(2, 4, 2, 300, 260, 128);
  p.o = Strides::packed(attention::Layout::kBHSD, 300, 4, 128);
  p.scale = 0.3f;
  run_attention<Cfg90<128>>(p);
  // fp8 with a chain that changes scores (it sees them in natural units, fp8 scales included) and
  // with a window (its first visited block is not the first).
  using Capped = ScoreChain<Softcap, Causal>;
  run_attention<Cfg90<128, 128, 128, Capped, Consumers<2>, float8_e4m3_t>>(dense(1, 2, 2, 300, 300, 128), Capped{{2.0f}, {}},
                                                                              Capped{{2.0f}, {}});
  using Window = ScoreChain<SlidingWindow<BottomRight>>;
  run_attention<Cfg90<128, 128, 128, Window, Consumers<2>, float8_e4m3_t>>(dense(1, 2, 2, 600, 600, 128), Window{{200, 0}},
                                                                              Window{{200, 0}});
}

TEST_CASE("attention sm90: refusals name the fix and launch nothing", "[gpu][attention][sm90]") {
  test::require_gpu();
  test::Refusals<Cfg90<128>> r;
  r.common();
  std::vector<int> const cu{0, 64};
  DeviceBuffer<int> dcu(cu);
  CHECK_THAT(r.message(Problem::variable_lengths(1, 2, 2, dcu.get(), dcu.get(), 64, 64, 63, 64, 128)), Catch::Contains("total_q = 63"));
  r.nothing_written();
  // A stage's parameters against the problem: ALiBi's distances are exact below 2^22. The long
  // problem has no tensors: were the refusal gone, the null pointers would stop the call instead
  // (a failed check here, nothing launched).
  using Linear = ScoreChain<Alibi<BottomRight>>;
  using LinearAttention = attention::Attention<Cfg90<128, 128, 128, Linear>>;
  DeviceBuffer<float> slopes(std::vector<float>{0.5f, 0.25f});
  LinearAttention::Arguments const long_keys{dense(1, 2, 2, 64, 1 << 22, 128), nullptr, nullptr, nullptr, nullptr, nullptr,
                                             Linear{{slopes.get()}}};
  CHECK_THAT(LinearAttention{}.run(long_keys).message(),
             Catch::Contains("seqlen_k = 4194304: both must be below 2^22") && Catch::Contains("write a stage of your own"));
  test::Refusals<Cfg90<128, 128, 128, Linear>> a;
  CHECK_THAT(a.message(dense(1, 2, 2, 64, 64, 128)), Catch::Contains("Alibi: slopes is null"));
  a.nothing_written();
}
