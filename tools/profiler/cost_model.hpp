// The static cost model behind `--top-k`: a time estimate per configuration and problem from the
// device's peak rates, without running anything. It ranks; it does not predict to the percent.
//
//   time = launch + max(DRAM floor, waves x time of one work item + split-K's reduction)
//   work item = one output tile's share of K: max(tensor time, operand fetch time) + epilogue
//
// - tensor time: the tile's FLOPs at the SM's peak rate for the architecture's MMA (wgmma, or
//   mma.sync at half of it on Hopper), times an efficiency that falls with the tile's operand
//   intensity bm bn / (bm + bn) (small tiles feed the tensor cores worse);
// - operand fetch: the stages in flight (stages - 1 of them, each bm + bn rows of BK) over the
//   memory latency bound what one SM can fetch, and the SMs share the L2 bandwidth;
// - waves: work items (tiles x K slices, the GEMM's own split-K choice) over the SMs (one block
//   per SM for the persistent sm90 kernel, as many as fit for sm80); the partial tile of the last
//   wave costs a whole item (wave quantization);
// - DRAM floor: A, B and D once at the DRAM bandwidth (split-K's partial sums stay in L2).
#pragma once

#include <vector>

#include "options.hpp"
#include "tessera/attention/config_check.hpp"
#include "tessera/gemm/config_check.hpp"

namespace tessera::profiler {

struct DeviceModel {
  int sms = 132;
  int cc = 90;
  double clock_ghz = 1.98;          // SM clock (the device's maximum)
  double dram_gbps = 3350.0 * 0.8;  // achievable DRAM bandwidth
  double l2_gbps = 3350.0 * 3.0;    // L2 to SMs, all SMs together
  double latency_us = 1.2;          // a load's round trip under load
  double launch_us = 4.0;           // launch and ramp of a kernel
  int smem_per_sm = 228 * 1024;
};

// The device's model from its properties (sms, cc, clocks, bus width); h100() when no GPU.
DeviceModel h100();

struct ProblemShape {
  int m = 1, n = 1, k = 1, batch = 1;
};

// Dense tensor FLOP per clock per SM for the spec's MMA (wgmma or mma.sync) and element type.
double flops_per_clock_per_sm(gemm::ConfigSpec const& s);

// The split-K the GEMM chooses automatically (Gemm::split_k_for with split_k = 0), on the kernel's
// view of the problem.
int automatic_split(gemm::ConfigSpec const& s, ProblemShape const& p, int sms);

// Estimated microseconds of the configuration on the problem (swap_ab: the transposed problem).
double predict_us(gemm::ConfigSpec const& s, bool swap_ab, ProblemShape const& p, DeviceModel const& d);

// --top-k's choice: the k candidates of least predicted time, at most `per_family` of each tile
// family (block tile, schedule, cluster: its stage counts and swap_ab variants differ little, and
// near-ties of one family would crowd out the others), equal predictions ordered deeper stages
// first. Returns indices into `candidates`, best first.
struct Prediction {
  gemm::ConfigSpec spec;
  double us = 0;
};
std::vector<int> select_top_k(std::vector<Prediction> const& candidates, int k, int per_family = 2);

// ---- attention ---------------------------------------------------------------------------------
// The Hopper kernel's time on a problem, as the GEMM's: persistent blocks (one per SM) take the
// tiles (BQ queries of one head) in the kernel's order (attention::TileOrder: longest first under
// a mask; a packed batch of variable lengths numbered sequence by sequence, each sequence's tiles
// walking its own keys); a tile walks the blocks of BKV keys its mask leaves (partial ones masked
// score by score); one block of keys costs
//
//   max(tensor time (Q K^T and P V at the wgmma peak -- twice 16-bit's for fp8 --, times an
//       efficiency), its K and V from the SM's share of L2) + the softmax's exp2 and float work
//       (special functions: 16 a clock per SM; two or three consumers hide half of it behind the
//       others' wgmma) + a fixed turn (barriers, issue)
//
// and the slowest block's sum is the time, with the DRAM floor (Q, K, V, O once) and a launch. The
// sm80 kernel's (arch_cc = 80): a block per tile at mma.sync's rate, as many on an SM as fit,
// softmax not hidden, list-scheduled over the SMs. It ranks tiles; its constants are the hardware's
// rates, not fitted to measurements.
double predict_attention_us(attention::ConfigSpec const& s, AttentionShape const& p, DeviceModel const& d);

// A gemm::ConfigSpec that stands for an attention spec's tile family in select_top_k (BQ as bm,
// BKV as bn, the consumers and stages).
gemm::ConfigSpec attention_family(attention::ConfigSpec const& s);

}  // namespace tessera::profiler
