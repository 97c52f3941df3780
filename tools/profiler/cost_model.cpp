#include "cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <tuple>

#include "tessera/attention/tile_order.hpp"

namespace tessera::profiler {

DeviceModel h100() { return {}; }  // (the fields' defaults)

double flops_per_clock_per_sm(gemm::ConfigSpec const& s) {
  // 16-bit dense: sm90 wgmma 4096 FLOP/clk/SM, mma.sync 2048 (on sm_80 and on Hopper); tf32 half
  // of 16-bit, 8-bit twice.
  double base = s.warp_specialized() ? 4096.0 : 2048.0;
  int const bytes = gemm::dtype_bytes(s.a);
  if (bytes == 4) base /= 2;
  if (bytes == 1) base *= 2;
  return base;
}

int automatic_split(gemm::ConfigSpec const& s, ProblemShape const& p, int sms) {
  auto const ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  std::int64_t const tiles = ceil_div(p.m, s.bm) * ceil_div(p.n, s.bn) * p.batch;
  int const k_tiles = int(ceil_div(p.k, s.bk));
  std::int64_t const fill = s.warp_specialized() ? sms / tiles : ceil_div(sms, tiles);
  int split = int(std::max<std::int64_t>(1, std::min<std::int64_t>({fill, k_tiles / 4, 16})));
  if (split <= 1 || k_tiles < 1) return 1;
  return int(ceil_div(k_tiles, ceil_div(k_tiles, split)));
}

double predict_us(gemm::ConfigSpec const& s, bool swap_ab, ProblemShape const& given, DeviceModel const& d) {
  ProblemShape p = given;
  if (swap_ab) std::swap(p.m, p.n);
  auto const ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  int const split = automatic_split(s, p, d.sms);
  std::int64_t const tiles = ceil_div(p.m, s.bm) * ceil_div(p.n, s.bn) * p.batch;
  std::int64_t const k_tiles = ceil_div(p.k, s.bk);
  std::int64_t const k_per_item = ceil_div(k_tiles, split);
  std::int64_t const items = tiles * split;

  // Blocks at once per SM: one for the persistent kernel; by shared memory for sm80 (at most 2).
  int const per_sm = s.warp_specialized() ? 1 : std::clamp(d.smem_per_sm / std::max(1, gemm::smem_bytes(s) + 1024), 1, 2);
  std::int64_t const slots = std::int64_t(d.sms) * per_sm;
  double const waves = double(ceil_div(items, slots));
  std::int64_t const active = std::min<std::int64_t>(items, slots);

  // One k-tile step of one item: the slowest of the tensor cores, the L2 share of the stage's
  // bytes (whole boxes: rows past the problem are filled, not skipped), the stages in flight over
  // the latency, and the pipeline's own round trip (barriers and issue; longer with two consumers).
  double const intensity = double(s.bm) * s.bn / double(s.bm + s.bn);
  double efficiency = 0.91 * intensity / (intensity + 12.0);
  if (s.warp_specialized() && s.consumers == 1) efficiency *= 0.72;  // one warpgroup cannot keep the tensor cores busy
  if (!s.warp_specialized()) efficiency *= 0.75;
  double const flop_rate = flops_per_clock_per_sm(s) * d.clock_ghz * 1e3 * efficiency / per_sm;  // FLOP per us
  double const tensor_us = 2.0 * s.bm * s.bn * double(s.bk) / flop_rate;
  double const stage_bytes = double(s.bm * gemm::dtype_bytes(s.a) + s.bn * gemm::dtype_bytes(s.b)) * s.bk;
  double const l2_share = d.l2_gbps * 1e3 / double(std::max<std::int64_t>(active, 1)) / per_sm;  // bytes per us
  double const fetch_us = stage_bytes / l2_share;
  double const in_flight_us = d.latency_us / std::max(1, s.stages - 1);
  double const round_trip_us = s.warp_specialized() ? (s.consumers == 2 && !s.ping_pong ? 0.40 : 0.24) : 0.30;
  double const step_us = std::max({tensor_us, fetch_us, in_flight_us, round_trip_us});
  double const tile_out_bytes = double(s.bm) * s.bn * (split > 1 ? 4.0 : gemm::dtype_bytes(s.d));
  double epilogue_us = tile_out_bytes / l2_share;
  if (s.ping_pong) epilogue_us *= 0.25;  // the other consumer's mainloop runs meanwhile
  double const item_us = double(k_per_item) * step_us + epilogue_us;

  // DRAM: A and B once, D once (the stages in flight per SM are the items' concern above).
  double const dram_bytes = double(p.batch) * (double(p.m) * p.k * gemm::dtype_bytes(s.a) + double(p.n) * p.k * gemm::dtype_bytes(s.b) +
                                               double(p.m) * p.n * gemm::dtype_bytes(s.d));
  double const dram_us = dram_bytes / (d.dram_gbps * 1e3);
  // Split-K: the last slice of each tile reads the others' partial sums after its own item.
  double const reduce_us = double(split - 1) * s.bm * s.bn * 4.0 / l2_share;
  return d.launch_us + d.latency_us + std::max(dram_us, waves * item_us) + reduce_us;
}

std::vector<int> select_top_k(std::vector<Prediction> const& c, int k, int per_family) {
  std::vector<int> order(c.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return c[std::size_t(a)].us < c[std::size_t(b)].us ||
           (c[std::size_t(a)].us == c[std::size_t(b)].us && c[std::size_t(a)].spec.stages > c[std::size_t(b)].spec.stages);
  });
  std::map<std::tuple<int, int, int, int, bool, int, int>, int> taken;
  std::vector<int> chosen;
  for (int i : order) {
    if (int(chosen.size()) >= k) break;
    gemm::ConfigSpec const& s = c[std::size_t(i)].spec;
    int& n = taken[{s.arch_cc, s.bm, s.bn, s.consumers, s.ping_pong, s.cluster_m, s.cluster_n}];
    if (n >= per_family) continue;
    ++n;
    chosen.push_back(i);
  }
  return chosen;
}

double predict_attention_us(attention::ConfigSpec const& s, AttentionShape const& p, DeviceModel const& d) {
  using tuning::AttentionMask;
  int const bq = s.bq, bkv = s.bkv, e = gemm::dtype_bytes(s.element);
  double const clocks_per_us = d.clock_ghz * 1e3;
  // One block of keys on one SM, in clocks: the tensor cores (efficiency falling with the smaller
  // tile side; one consumer cannot keep them busy), the exponentials and their float work, K and V
  // from the SM's share of L2, and a fixed turn.
  double const side = std::min(bq, bkv);
  double efficiency = 0.85 * side / (side + 24.0);
  if (s.consumers == 1) efficiency *= 0.7;
  double const scores = double(bq) * bkv;
  double const tensor = 2.0 * scores * (s.head_dim + s.head_dim_v) / (4096.0 * efficiency);
  double const softmax = scores * (1.0 / 16 + 6.0 / 128) * (s.consumers >= 2 ? 0.5 : 1.0);
  std::int64_t const q_blocks = (std::int64_t(p.seqlen_q) + bq - 1) / bq;
  std::int64_t const tiles = q_blocks * p.heads * p.batch;
  std::int64_t const grid = std::min<std::int64_t>(tiles, d.sms);
  double const l2_per_sm = d.l2_gbps * 1e3 / double(std::max<std::int64_t>(grid, 1)) / clocks_per_us;  // bytes per clock
  double const fetch = double(bkv) * (s.head_dim + s.head_dim_v) * e / l2_per_sm;
  double const full_block = std::max(tensor, fetch) + softmax + 400.0;
  double const partial_block = full_block + scores * 4.0 / 128;  // the mask's compares and selects
  // Each query block's clocks: the blocks of keys its mask leaves (attention/block_range.hpp), Q's
  // load and O's store.
  int const offset = p.mask.kind == AttentionMask::kCausalTopLeft ? 0 : p.seqlen_k - p.seqlen_q;
  int const left = p.mask.kind == AttentionMask::kWindow ? p.mask.left : -1;
  int const right = p.mask.kind == AttentionMask::kWindow ? p.mask.right : p.mask.kind == AttentionMask::kNone ? -1 : 0;
  std::vector<double> tile_clocks(static_cast<std::size_t>(q_blocks), 0.0);
  for (std::int64_t m = 0; m < q_blocks; ++m) {
    std::int64_t const q0 = m * bq, q1 = std::min<std::int64_t>(q0 + bq, p.seqlen_q);
    std::int64_t const lo = left < 0 ? 0 : std::max<std::int64_t>(0, q0 + offset - left);
    std::int64_t const hi = right < 0 ? p.seqlen_k : std::min<std::int64_t>(p.seqlen_k, q1 - 1 + offset + right + 1);
    double clocks = double(bq) * (s.head_dim + s.head_dim_v) * e / l2_per_sm;
    if (hi > lo) {
      std::int64_t const first = lo / bkv, last = (hi - 1) / bkv;  // the blocks visited
      // Partial: the blocks that cut a query's range (the diagonal ones), or all under a window's both bounds.
      std::int64_t partial = 0;
      if (p.mask.kind != AttentionMask::kNone)
        for (std::int64_t b = first; b <= last; ++b) {
          std::int64_t const k0 = b * bkv, k1 = std::min<std::int64_t>(k0 + bkv, p.seqlen_k);
          bool const cut_right = right >= 0 && k1 - 1 > q0 + offset + right;
          bool const cut_left = left >= 0 && k0 < q1 - 1 + offset - left;
          partial += cut_right || cut_left || k1 - k0 < bkv ? 1 : 0;
        }
      clocks += double(last - first + 1 - partial) * full_block + double(partial) * partial_block;
    }
    tile_clocks[std::size_t(m)] = clocks;
  }
  // The persistent blocks' loads, in the kernel's order of the tiles (attention/tile_order.hpp:
  // longest first where the mask limits the keys).
  attention::TileOrder const order{int(q_blocks), p.heads, p.batch, p.mask.kind != AttentionMask::kNone};
  double slowest = 0;
  for (int block = 0; block < int(grid); ++block) {
    double load = 0;
    for (int j = 0, w = 0; (w = order.at(block, int(grid), j)) >= 0; ++j) load += tile_clocks[std::size_t(order.coord(w, int(grid)).q_block)];
    slowest = std::max(slowest, load);
  }
  double const slowest_us = slowest / clocks_per_us;
  double const dram_us = p.bytes(e) / (d.dram_gbps * 1e3);
  return d.launch_us + d.latency_us + std::max(dram_us, slowest_us);
}

gemm::ConfigSpec attention_family(attention::ConfigSpec const& s) {
  gemm::ConfigSpec g;
  g.arch_cc = s.arch_cc;
  g.a = g.b = g.d = s.element;
  g.bm = s.bq;
  g.bn = s.bkv;
  g.consumers = s.consumers;
  g.stages = s.stages;
  return g;
}

}  // namespace tessera::profiler
