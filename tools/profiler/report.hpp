// The profiler's results: one row per (configuration, problem), written as a terminal table,
// CSV and JSON, and read back from CSV and JSON (what `emit` reads).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "tessera/core/status.hpp"

namespace tessera::profiler {

enum class Outcome {
  kPassed,   // verified against the reference, then timed
  kWrong,    // ran, but disagrees with the reference (reported, never timed)
  kSkipped,  // cannot implement the problem (the message says why)
  kError     // a launch or CUDA error
};
char const* outcome_name(Outcome o);
bool parse_outcome(std::string const& s, Outcome& o);

// The kernel name of a `profile --compare cublas` row (never a winner `emit` writes).
inline constexpr char kCublasName[] = "cublasLt";

struct Result {
  std::string kernel;  // the configuration's name, "_swap" appended when it ran with swap_ab
  std::string dtype, layout, epilogue;
  int m = 0, n = 0, k = 0, batch = 1;
  // "gemm", or "conv": a convolution in `direction` (fprop, dgrad, wgrad) on `problem` (as
  // --problems takes it: "n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1"), whose m, n, k and batch are its
  // implicit GEMM's (per group; batch = groups) and layout empty; or "attention": `problem` as
  // --problems takes it ("batch=2 heads=16 heads_kv=4 sq=1024 sk=1024 dim=128 mask=causal"),
  // layout bshd or bhsd, m = seqlen_q, n = seqlen_k, k = head_dim, batch = batch x heads.
  std::string operation = "gemm";
  std::string direction, problem;
  Outcome outcome = Outcome::kSkipped;
  std::string message;
  double time_us = 0;       // median of the timed runs
  double predicted_us = 0;  // the cost model's estimate
  double error_ratio = 0;   // the largest |error| / tolerance seen in verification

  bool conv() const { return operation == "conv"; }
  bool attention() const { return operation == "attention"; }
  double tflops() const;  // 2 M N K batch / time (attention: AttentionShape::flops)
  double gbps() const;    // A, B and D once / time (a convolution: its three tensors once; attention: Q, K, V, O and the LSE)
  friend bool operator==(Result const&, Result const&) = default;
};

struct Report {
  std::string device;  // "NVIDIA H100 80GB HBM3"
  std::string date;    // ISO date of the run
  std::vector<Result> results;
  friend bool operator==(Report const&, Report const&) = default;
};

std::string to_csv(Report const& r);
Status from_csv(std::string const& text, Report& out);
std::string to_json(Report const& r);
Status from_json(std::string const& text, Report& out);

// The results of one problem, fastest first (passed ones by time, then the others), as a table;
// with a baseline's time (cuBLASLt's, `--compare cublas`), a column of its time / each row's time
// (above 1: faster than the baseline).
std::string format_table(std::vector<Result> results, double baseline_us = 0);

Status write_file(std::string const& path, std::string const& text);
Status read_file(std::string const& path, std::string& text);

}  // namespace tessera::profiler
