#include "cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <tuple>
#include <vector>

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

namespace {
// One block of keys of an attention tile on one SM, in clocks: a full one and one the mask cuts
// (its compares and selects on every score).
struct KeyBlockClocks {
  double full = 0, partial = 0, tile = 0;  // tile: Q's load and O's store, once a tile
};

// The clocks of query block m of one sequence (sq queries, sk keys): the blocks of keys its mask
// leaves (attention/block_range.hpp), partial ones at the mask's edges, and the tile's own.
double tile_clocks(attention::ConfigSpec const& s, AttentionMaskSetting const& mask, int sq, int sk, std::int64_t m, KeyBlockClocks const& c) {
  using tuning::AttentionMask;
  int const bq = s.bq, bkv = s.bkv;
  int const offset = mask.kind == AttentionMask::kCausalTopLeft ? 0 : sk - sq;
  int const left = mask.kind == AttentionMask::kWindow ? mask.left : -1;
  int const right = mask.kind == AttentionMask::kWindow ? mask.right : mask.kind == AttentionMask::kNone ? -1 : 0;
  std::int64_t const q0 = m * bq, q1 = std::min<std::int64_t>(q0 + bq, sq);
  std::int64_t const lo = left < 0 ? 0 : std::max<std::int64_t>(0, q0 + offset - left);
  std::int64_t const hi = right < 0 ? sk : std::min<std::int64_t>(sk, q1 - 1 + offset + right + 1);
  double clocks = c.tile;
  if (hi > lo) {
    std::int64_t const first = lo / bkv, last = (hi - 1) / bkv;  // the blocks visited
    // Partial: the blocks that cut a query's range (the diagonal ones), or all under a window's both bounds.
    std::int64_t partial = 0;
    if (mask.kind != AttentionMask::kNone)
      for (std::int64_t b = first; b <= last; ++b) {
        std::int64_t const k0 = b * bkv, k1 = std::min<std::int64_t>(k0 + bkv, sk);
        bool const cut_right = right >= 0 && k1 - 1 > q0 + offset + right;
        bool const cut_left = left >= 0 && k0 < q1 - 1 + offset - left;
        partial += cut_right || cut_left || k1 - k0 < bkv ? 1 : 0;
      }
    clocks += double(last - first + 1 - partial) * c.full + double(partial) * c.partial;
  }
  return clocks;
}

// The sm80 kernel: a block per tile (BQ queries of one head of one batch entry), as many blocks on
// an SM as its shared memory and registers allow (about 224 registers a thread: docs/performance.md's
// 202 to 242), launched query block fastest (longest first), head, then batch entry; each block of
// keys at mma.sync's rate (2048 FLOP a clock per SM, on sm_80 and on Hopper) with the softmax
// between the GEMMs (nothing hides it); co-resident blocks share the SM, hiding a quarter of each
// other's time. The slowest SM's sum of its tiles (list scheduling) is the time.
double predict_attention_sm80_us(attention::ConfigSpec const& s, AttentionShape const& p, DeviceModel const& d) {
  int const bq = s.bq, bkv = s.bkv, e = gemm::dtype_bytes(s.element);
  double const clocks_per_us = d.clock_ghz * 1e3;
  int const by_smem = std::max(1, d.smem_per_sm / (s.smem_bytes() + 1024)), by_registers = std::max(1, 65536 / (s.threads() * 224));
  int const per_sm = std::clamp(std::min(by_smem, by_registers), 1, 4);
  double const side = std::min(bq, bkv);
  double const efficiency = 0.85 * side / (side + 24.0) * (s.warps >= 4 ? 1.0 : 0.7);
  double const scores = double(bq) * bkv;
  double const tensor = 2.0 * scores * (s.head_dim + s.head_dim_v) / (2048.0 * efficiency);
  double const softmax = scores * (1.0 / 16 + 6.0 / 128);
  std::int64_t const q_blocks = (std::int64_t(p.seqlen_q) + bq - 1) / bq;
  std::int64_t const slots = std::int64_t(d.sms) * per_sm;
  double const l2_per_sm = d.l2_gbps * 1e3 / double(d.sms) / clocks_per_us;  // bytes per clock
  double const fetch = double(bkv) * (s.head_dim + s.head_dim_v) * e / l2_per_sm;
  KeyBlockClocks c;
  c.full = std::max(tensor, fetch) + softmax + 200.0;
  c.partial = c.full + scores * 4.0 / 128;
  c.tile = double(bq) * (s.head_dim + s.head_dim_v) * e / l2_per_sm;
  std::vector<double> per_block(static_cast<std::size_t>(q_blocks));
  for (std::int64_t m = 0; m < q_blocks; ++m) per_block[std::size_t(m)] = tile_clocks(s, p.mask, p.seqlen_q, p.seqlen_k, m, c);
  // Each slot's busy time; a tile on a slot takes its clocks times the blocks sharing the SM, less
  // the quarter they hide.
  double const share = per_sm > 1 ? per_sm * 0.75 : 1.0;
  std::vector<double> slot(static_cast<std::size_t>(std::min<std::int64_t>(slots, q_blocks * p.heads * p.batch)), 0.0);
  if (slot.empty()) return d.launch_us;
  std::make_heap(slot.begin(), slot.end(), std::greater<>());
  for (int b = 0; b < p.batch; ++b)
    for (int h = 0; h < p.heads; ++h)
      for (std::int64_t m = q_blocks - 1; m >= 0; --m) {
        std::pop_heap(slot.begin(), slot.end(), std::greater<>());
        slot.back() += per_block[std::size_t(m)] * share;
        std::push_heap(slot.begin(), slot.end(), std::greater<>());
      }
  double const slowest_us = *std::max_element(slot.begin(), slot.end()) / clocks_per_us;
  double const dram_us = p.bytes(e) / (d.dram_gbps * 1e3);
  return d.launch_us + d.latency_us + std::max(dram_us, slowest_us);
}
}  // namespace

double predict_attention_us(attention::ConfigSpec const& s, AttentionShape const& p, DeviceModel const& d) {
  using tuning::AttentionMask;
  if (s.arch_cc == 80) return predict_attention_sm80_us(s, p, d);
  int const bq = s.bq, bkv = s.bkv, e = gemm::dtype_bytes(s.element);
  double const clocks_per_us = d.clock_ghz * 1e3;
  // One block of keys on one SM, in clocks: the tensor cores (efficiency falling with the smaller
  // tile side; one consumer cannot keep them busy; fp8's wgmma twice 16-bit's rate), the
  // exponentials and their float work, K and V from the SM's share of L2, and a fixed turn.
  double const side = std::min(bq, bkv);
  double efficiency = 0.85 * side / (side + 24.0);
  if (s.consumers == 1) efficiency *= 0.7;
  double const scores = double(bq) * bkv;
  double const tensor = 2.0 * scores * (s.head_dim + s.head_dim_v) / ((s.fp8() ? 8192.0 : 4096.0) * efficiency);
  double const softmax = scores * (1.0 / 16 + 6.0 / 128) * (s.consumers >= 2 ? 0.5 : 1.0);
  // The tiles: a tile per query block of each head and batch entry (of each sequence of a packed
  // batch: TileOrder numbers them entry by entry); the grid, one block per SM, at most a tile each
  // (a packed batch launches at most heads x (total_q / BQ + batch)).
  std::int64_t const q_blocks = (std::int64_t(p.seqlen_q) + bq - 1) / bq;
  std::int64_t tiles = q_blocks * p.heads * p.batch;
  if (p.variable()) tiles = std::min<std::int64_t>(tiles, std::int64_t(p.heads) * (p.total_q() / bq + p.batch));
  std::int64_t const grid = std::min<std::int64_t>(tiles, d.sms);
  if (grid == 0) return d.launch_us;
  double const l2_per_sm = d.l2_gbps * 1e3 / double(grid) / clocks_per_us;  // bytes per clock
  double const fetch = double(bkv) * (s.head_dim + s.head_dim_v) * e / l2_per_sm;
  KeyBlockClocks c;
  c.full = std::max(tensor, fetch) + softmax + 400.0;
  c.partial = c.full + scores * 4.0 / 128;
  c.tile = double(bq) * (s.head_dim + s.head_dim_v) * e / l2_per_sm;
  // Each sequence's query blocks' clocks (fixed lengths: one sequence for every batch entry).
  std::vector<int> const fixed_q{p.seqlen_q}, fixed_k{p.seqlen_k};
  std::vector<int> const& lq = p.variable() ? p.seqlens_q : fixed_q;
  std::vector<int> const& lk = p.variable() ? p.seqlens_k : fixed_k;
  std::vector<std::vector<double>> clocks(lq.size());
  for (std::size_t b = 0; b < lq.size(); ++b)
    for (std::int64_t m = 0; m < (std::int64_t(lq[b]) + bq - 1) / bq; ++m) clocks[b].push_back(tile_clocks(s, p.mask, lq[b], lk[b], m, c));
  // The persistent blocks' loads, in the kernel's order of the tiles (attention/tile_order.hpp:
  // longest first where the mask limits the keys).
  std::vector<int> cu{0};
  for (int x : lq) cu.push_back(cu.back() + x);
  attention::TileOrder order{int(q_blocks), p.heads, p.batch, p.mask.kind != AttentionMask::kNone};
  if (p.variable()) order.cu_seqlens_q = cu.data(), order.bq = bq;
  double slowest = 0;
  for (int block = 0; block < int(grid); ++block) {
    double load = 0;
    attention::TileOrder::Cursor at;
    for (int j = 0; order.next(block, int(grid), j, at); ++j) load += clocks[p.variable() ? std::size_t(at.tile.batch) : 0][std::size_t(at.tile.q_block)];
    slowest = std::max(slowest, load);
  }
  double const slowest_us = slowest / clocks_per_us;
  double const dram_us = p.bytes(e, s.fp8() ? 2 : e) / (d.dram_gbps * 1e3);
  return d.launch_us + d.latency_us + std::max(dram_us, slowest_us);
}

gemm::ConfigSpec attention_family(attention::ConfigSpec const& s) {
  gemm::ConfigSpec g;
  g.arch_cc = s.arch_cc;
  g.a = g.b = g.d = s.element;
  g.bm = s.bq;
  g.bn = s.bkv;
  g.consumers = s.consumers;
  g.warps_m = s.warps;
  g.warps_n = s.warps > 0 ? 1 : 0;
  g.stages = s.stages;
  return g;
}

}  // namespace tessera::profiler
