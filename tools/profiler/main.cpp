// tessera-profile: lists Tessera's GEMM, convolution and attention configurations (no GPU needed),
// profiles them on problems (verified against a device reference, then timed), and emits the
// winners as a C++ header for gemm::Tuned, conv::Tuned and attention::Tuned. See docs/profiler.md.
//
//   tessera-profile list gemm --arch 90 --dtype bf16
//   tessera-profile list conv --dir wgrad
//   tessera-profile list attention --dtype bf16
//   tessera-profile profile gemm --m 16,128,4096 --n 4096 --k 4096 --dtype bf16 --layout tn --json out.json
//   tessera-profile profile conv --n 32 --h 56 --w 56 --c 64 --k 64 --r 3 --s 3 --pad 1 --dir fprop,dgrad --json conv.json
//   tessera-profile profile attention --batch 2 --heads 16 --heads-kv 4 --sq 1024 --dim 128 --mask causal --json attn.json
//   tessera-profile profile attention --heads 16 --seqlens 512,1024,0,1,3000 --dim 128 --dtype e4m3 --json varlen.json
//   tessera-profile emit out.json conv.json attn.json -o my_tuned.hpp --namespace my_tuned
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "attention_runner.hpp"
#include "conv_runner.hpp"
#include "cost_model.hpp"
#include "emit.hpp"
#include "options.hpp"
#include "registry_all.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "tessera/conv/implicit_gemm.hpp"
#include "tessera/tuning/attention_space.hpp"
#include "tessera/tuning/conv_space.hpp"
#include "tessera/tuning/gemm_space.hpp"

namespace tp = tessera::profiler;
namespace tuning = tessera::tuning;
namespace gemm = tessera::gemm;
namespace conv = tessera::conv;
using tessera::Status;

namespace {

// A CLI11 check from one of our parsers: its message lists the valid choices.
template <class Parse>
CLI::Validator checked(Parse parse, std::string const& name) {
  return CLI::Validator(
      [parse](std::string& text) {
        Status const s = parse(text);
        return s.ok() ? std::string() : s.message();
      },
      name);
}

// A whole number from `least` to `most` (the option's name in the message).
CLI::Validator count(std::string const& option, long long least, long long most = 1ll << 62) {
  return checked([option, least, most](std::string const& t) { return tp::parse_count(option, t, least, most); }, "INT");
}

void error(std::string const& message) { std::fprintf(stderr, "tessera-profile: %s\n", message.c_str()); }

// The names of an operation's whole space (the GEMM's default space, the convolutions' and
// attention's wide ones).
std::vector<std::string> space_names(std::string const& operation) {
  std::vector<std::string> names;
  if (operation == "attention") {
    auto const space = tuning::attention_space(tuning::AttentionSpaceSize::kWide);
    for (int i = 0; i < space.size; ++i) names.push_back(tuning::name(space.items[i].spec));
  } else if (operation == "conv") {
    auto const space = tuning::conv_space(tuning::ConvSpaceSize::kWide);
    for (int i = 0; i < space.size; ++i) names.push_back(tuning::name(space.items[i].spec));
  } else {
    auto const space = tuning::gemm_space(tuning::SpaceSize::kDefault);
    for (int i = 0; i < space.size; ++i) names.push_back(tuning::name(space.items[i].spec));
  }
  return names;
}

// A --kernels filter that matches no configuration of the operation's whole space is an error that
// names the nearest names; 0 where it matches some (or is empty).
int kernels_filter_error(std::string const& kernels, std::string const& operation) {
  if (kernels.empty()) return 0;
  std::vector<std::string> const names = space_names(operation);
  for (auto const& n : names)
    if (tp::matches_any(kernels, n)) return 0;
  std::string near;
  for (auto const& n : tp::nearest_names(kernels, names, 3)) near += (near.empty() ? "" : ", ") + n;
  error(fmt::format("--kernels {} matches no configuration of the space; the nearest: {} (tessera-profile list {} shows them all; * "
                    "matches any run of characters, ? one)",
                    kernels, near, operation));
  return 2;
}

CLI::Validator const kOperation = checked(
    [](std::string const& t) {
      return t == "gemm" || t == "conv" || t == "attention"
                 ? Status::success()
                 : Status::invalid_argument("unknown operation '" + t + "'; the operations are: gemm, conv, attention");
    },
    "OPERATION");

// Options of one operation given to the other: the first one's message, or "".
std::string foreign_option(std::vector<std::pair<CLI::Option*, char const*>> const& options, std::string const& operation,
                           std::string const& hint) {
  for (auto const& [option, name] : options)
    if (option->count() > 0) return fmt::format("{} is not an option of {}; {}", name, operation, hint);
  return "";
}

std::string today() {
  std::time_t const now = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

bool dtype_matches(gemm::ConfigSpec const& s, tp::ProblemTypes const& t) { return s.a == t.a && s.b == t.b && s.d == t.d; }

// ---- list ------------------------------------------------------------------------------------------
struct ListOptions {
  std::string operation, dtype, layout, directions, kernels, json;
  int arch = 0;
  bool all = false, invalid_only = false, valid_only = false;
};

// One candidate of a space as `list` shows it.
struct ListRow {
  std::string name;
  bool valid = false, amd = false;
  std::string dropped_why;  // for an invalid one
  int smem_bytes = 0, threads = 0;
  std::function<Status(cudaFuncAttributes&)> attributes;  // of the built kernel (empty: not built)
};

// What left valid configurations out of this binary: the spaces it was built with, the name
// filter, the lack of a 90a target.
struct Missing {
  int count = 0;
  bool gemm_space = false, filter = false, sm90 = false;
  std::string conv_space;       // the convolution space that holds them ("default", "wide"), or ""
  std::string attention_space;  // attention's
};

// The CMake command that builds the valid configurations this binary lacks (only the settings that
// left them out), or "" when none is missing for a reason CMake controls.
std::string cmake_line_for_missing(Missing const& m) {
  std::string flags;
  if (m.gemm_space) flags += " -DTESSERA_PROFILER_SPACE=default";
  if (!m.conv_space.empty()) flags += " -DTESSERA_PROFILER_CONV_SPACE=" + m.conv_space;
  if (!m.attention_space.empty()) flags += " -DTESSERA_PROFILER_ATTENTION_SPACE=" + m.attention_space;
  if (m.filter) flags += " -DTESSERA_PROFILER_KERNELS=";
  if (m.sm90) flags += " -DCMAKE_CUDA_ARCHITECTURES=\"80;90a\"";
  if (flags.empty()) return "";
  return fmt::format("cmake {}{} && cmake --build {} --target tessera-profile", TESSERA_BINARY_DIR, flags, TESSERA_BINARY_DIR);
}

// Why a valid configuration missing from this binary is missing: outside the space it was built
// with (`space_out`), outside the name filter, or an sm90 one without a 90a target.
void note_missing(Missing& m, std::string const& name, bool space_out, bool sm90, int sm90_left_out) {
  ++m.count;
  bool const filter_out = !space_out && !std::string(tp::registry_filter()).empty() && !tp::matches_any(tp::registry_filter(), name);
  m.filter |= filter_out;
  m.sm90 |= !space_out && !filter_out && sm90 && sm90_left_out > 0;
}

// The same for an operation whose space comes in sizes reduced, default and wide (space_of(size)
// lists a size's candidates; `built`: the size this binary was built with): the smallest size that
// holds the configuration goes to `needed_space` where it is larger than the one there.
template <class Size, class SpaceOf>
void note_missing_sized(Missing& m, std::string& needed_space, std::string const& name, std::string const& built, SpaceOf space_of,
                        bool sm90, int sm90_left_out) {
  auto const rank = [](std::string const& s) { return s == "reduced" ? 0 : s == "default" ? 1 : 2; };
  std::string needed = "wide";
  for (Size size : {Size::kDefault, Size::kReduced}) {
    auto const space = space_of(size);
    for (int i = 0; i < space.size; ++i)
      if (tuning::name(space.items[i].spec) == name) needed = size == Size::kReduced ? "reduced" : "default";
  }
  bool const space_out = rank(needed) > rank(built);
  if (space_out && rank(needed) > rank(needed_space.empty() ? "reduced" : needed_space)) needed_space = needed;
  note_missing(m, name, space_out, sm90, sm90_left_out);
}

// The rows under the options' filters, printed with the space's totals (and --json written).
int print_list(ListOptions const& o, std::vector<ListRow> const& rows, Missing const& missing, bool filtered, char const* space_name,
               char const* operation) {
  bool const gpu = tp::check_gpu().ok();
  int shown = 0, valid = 0, built = 0, dropped = 0, amd = 0;
  std::string text;
  nlohmann::json listed = nlohmann::json::array();  // --json: the rows shown
  for (ListRow const& row : rows) {
    bool const is_built = bool(row.attributes);
    if (!row.valid) ++dropped;
    else if (++valid; is_built) ++built;
    else if (row.amd) ++amd;
    bool const show = o.invalid_only ? !row.valid : o.valid_only ? row.valid : o.all ? true : is_built;
    if (!show) continue;
    ++shown;
    // Registers and local memory (spill) bytes per thread as the GPU reports them for the built
    // kernels; the schedule's register allowance is what ptxas was given, not what it used.
    std::string regs = "-";
    nlohmann::json registers = nullptr, local_bytes = nullptr;
    if (is_built && gpu) {
      cudaFuncAttributes a{};
      if (row.attributes(a)) {
        regs = fmt::format("{}/{}", a.numRegs, a.localSizeBytes);
        registers = a.numRegs;
        local_bytes = a.localSizeBytes;
      } else {
        regs = "no code";
      }
    }
    std::string status;
    if (!row.valid) status = "dropped: " + row.dropped_why;
    else if (is_built) status = "built";
    else if (row.amd) status = "valid (AMD: builds with hipcc, not into this binary)";
    else status = "valid, not built into this binary";
    text += fmt::format("{:<48} {:>8.1f} {:>7} {:>9}  {}\n", row.name, row.smem_bytes / 1024.0, row.threads, regs, status);
    listed.push_back({{"name", row.name},
                      {"smem_bytes", row.smem_bytes},
                      {"threads", row.threads},
                      {"registers", registers},
                      {"local_bytes", local_bytes},
                      {"valid", row.valid},
                      {"built", is_built},
                      {"status", status}});
  }
  std::printf("%s", fmt::format("{:<48} {:>8} {:>7} {:>9}  {}\n", "configuration", "smem KiB", "threads", "regs/spill", "status").c_str());
  std::printf("%s", text.c_str());
  std::string const filter = tp::registry_filter();
  std::printf("%s", fmt::format("\n{} configurations shown{}. The space{}: {} valid ({} built into this binary: space \"{}\"{}), {} dropped.\n",
                                shown, !o.all && !o.valid_only && !o.invalid_only ? " (those built into this binary; --all shows every one)" : "",
                                filtered ? " under these filters" : "", valid, built, space_name,
                                filter.empty() ? "" : fmt::format(", filter \"{}\"", filter), dropped)
                        .c_str());
  std::printf("%s\n", gpu ? "regs/spill: registers and local-memory bytes per thread of each built kernel, as the GPU reports them."
                          : "regs/spill: reported for built kernels on a machine with a GPU (none here).");
  if (missing.count > 0) {
    std::string const line = cmake_line_for_missing(missing);
    std::printf("%d valid NVIDIA configurations are not built into this binary%s\n", missing.count,
                line.empty() ? "." : ("; to build them: " + line).c_str());
  }
  if (amd > 0) std::printf("%d valid AMD (gfx9) configurations build with hipcc (docs/building.md), never into this binary.\n", amd);
  if (dropped > 0 && !o.invalid_only) std::printf("`--invalid` shows why the %d dropped ones were dropped.\n", dropped);
  if (!o.json.empty()) {
    nlohmann::json const j = {{"operation", operation}, {"configurations", listed}, {"shown", shown},   {"valid", valid},
                              {"built", built},         {"dropped", dropped},       {"not_built", missing.count},
                              {"amd", amd},             {"space", space_name},      {"filter", filter}};
    if (Status const w = tp::write_file(o.json, j.dump(2) + "\n"); !w) {
      std::fprintf(stderr, "tessera-profile list: %s\n", w.message().c_str());
      return 1;
    }
  }
  return 0;
}

int list_gemm(ListOptions const& o) {
  tuning::GemmRegistry registry;
  tp::register_all(registry);
  tp::ProblemTypes types;
  tp::Layout layout;
  // (CLI11 has checked both)
  if (!o.dtype.empty() && !tp::parse_dtype(o.dtype, types)) return 1;
  if (!o.layout.empty() && !tp::parse_layout(o.layout, layout)) return 1;
  auto const space = tuning::gemm_space(tuning::SpaceSize::kDefault);
  auto const reduced = tuning::gemm_space(tuning::SpaceSize::kReduced);
  auto const in_reduced = [&](std::string const& name) {
    for (int i = 0; i < reduced.size; ++i)
      if (tuning::name(reduced.items[i].spec) == name) return true;
    return false;
  };
  std::vector<ListRow> rows;
  Missing missing;
  for (int i = 0; i < space.size; ++i) {
    tuning::Candidate const& c = space.items[i];
    gemm::ConfigSpec const& s = c.spec;
    std::string const name = tuning::name(s);
    if (o.arch != 0 && s.arch_cc != o.arch) continue;
    if (!o.dtype.empty() && !dtype_matches(s, types)) continue;
    if (!o.layout.empty() && (s.a_k_major != layout.a_k_major || s.b_k_major != layout.b_k_major)) continue;
    if (!o.kernels.empty() && !tp::matches_any(o.kernels, name)) continue;
    tuning::GemmKernel const* const entry = c.valid() ? registry.find(name) : nullptr;
    ListRow row{name, c.valid(), s.amd(), c.valid() ? "" : gemm::config_error_message(c.error), gemm::smem_bytes(s), s.threads(), {}};
    if (entry != nullptr) row.attributes = [entry](cudaFuncAttributes& a) { return entry->attributes(a); };
    if (c.valid() && entry == nullptr && !s.amd()) {
      bool const space_out = std::string(tp::registry_space()) == "reduced" && !in_reduced(name);
      missing.gemm_space |= space_out;
      note_missing(missing, name, space_out, s.warp_specialized(), tp::registry_sm90_left_out());
    }
    rows.push_back(std::move(row));
  }
  bool const filtered = o.arch || !o.dtype.empty() || !o.layout.empty() || !o.kernels.empty();
  return print_list(o, rows, missing, filtered, tp::registry_space(), "gemm");
}

int list_conv(ListOptions const& o) {
  tuning::ConvRegistry registry;
  tp::register_all(registry);
  tp::ProblemTypes types;
  std::vector<conv::Direction> directions;
  for (Status const& s : {o.dtype.empty() ? Status::success() : tp::parse_conv_dtype(o.dtype, types),
                         o.directions.empty() ? Status::success() : tp::parse_directions(o.directions, directions)})
    if (!s) {
      error(s.detail());
      return 1;
    }
  auto const space = tuning::conv_space(tuning::ConvSpaceSize::kWide);
  std::vector<ListRow> rows;
  Missing missing;
  for (int i = 0; i < space.size; ++i) {
    tuning::ConvCandidate const& c = space.items[i];
    conv::ConfigSpec const& s = c.spec;
    std::string const name = tuning::name(s);
    if (o.arch != 0 && s.gemm.arch_cc != o.arch) continue;
    if (!o.dtype.empty() && s.x() != types.a) continue;
    if (!directions.empty() && std::find(directions.begin(), directions.end(), s.direction) == directions.end()) continue;
    if (!o.kernels.empty() && !tp::matches_any(o.kernels, name)) continue;
    tuning::ConvKernel const* const entry = c.valid() ? registry.find(name) : nullptr;
    ListRow row{name, c.valid(), false, c.valid() ? "" : conv::config_error_message(s), gemm::smem_bytes(s.gemm), s.gemm.threads(), {}};
    if (entry != nullptr) row.attributes = [entry](cudaFuncAttributes& a) { return entry->attributes(a); };
    if (c.valid() && entry == nullptr)
      note_missing_sized<tuning::ConvSpaceSize>(missing, missing.conv_space, name, tp::registry_conv_space(),
                                                [](tuning::ConvSpaceSize z) { return tuning::conv_space(z); }, s.gemm.warp_specialized(),
                                                tp::registry_conv_sm90_left_out());
    rows.push_back(std::move(row));
  }
  bool const filtered = o.arch || !o.dtype.empty() || !o.directions.empty() || !o.kernels.empty();
  return print_list(o, rows, missing, filtered, tp::registry_conv_space(), "conv");
}

int list_attention(ListOptions const& o) {
  tuning::AttentionRegistry registry;
  tp::register_all(registry);
  tp::ProblemTypes types;
  if (!o.dtype.empty())
    if (Status const s = tp::parse_attention_dtype(o.dtype, types); !s) {
      error(s.detail());
      return 1;
    }
  auto const space = tuning::attention_space(tuning::AttentionSpaceSize::kWide);
  std::vector<ListRow> rows;
  Missing missing;
  for (int i = 0; i < space.size; ++i) {
    tuning::AttentionCandidate const& c = space.items[i];
    tessera::attention::ConfigSpec const& s = c.spec.config;
    std::string const name = tuning::name(c.spec);
    if (o.arch != 0 && s.arch_cc != o.arch) continue;
    if (!o.dtype.empty() && s.element != types.a) continue;
    if (!o.kernels.empty() && !tp::matches_any(o.kernels, name)) continue;
    tuning::AttentionKernel const* const entry = c.valid() ? registry.find(name) : nullptr;
    ListRow row{name, c.valid(), false, c.valid() ? "" : tessera::attention::config_error_message(c.error), s.smem_bytes(), s.threads(), {}};
    if (entry != nullptr) row.attributes = [entry](cudaFuncAttributes& a) { return entry->attributes(a); };
    if (c.valid() && entry == nullptr)
      note_missing_sized<tuning::AttentionSpaceSize>(missing, missing.attention_space, name, tp::registry_attention_space(),
                                                     [](tuning::AttentionSpaceSize z) { return tuning::attention_space(z); }, s.arch_cc == 90,
                                                     tp::registry_attention_sm90_left_out());
    rows.push_back(std::move(row));
  }
  bool const filtered = o.arch || !o.dtype.empty() || !o.kernels.empty();
  return print_list(o, rows, missing, filtered, tp::registry_attention_space(), "attention");
}

int run_list(ListOptions const& o, CLI::Option* layout, CLI::Option* dir) {
  std::string e;
  if (o.operation == "conv") e = foreign_option({{layout, "--layout"}}, "list conv", "a convolution's GEMM orders follow its --dir");
  else if (o.operation == "attention")
    e = foreign_option({{layout, "--layout"}, {dir, "--dir"}}, "list attention", "a layout is the problem's (profile attention --layout)");
  else e = foreign_option({{dir, "--dir"}}, "list gemm", "GEMMs take --layout");
  if (!e.empty()) {
    error(e);
    return 1;
  }
  if (int const k = kernels_filter_error(o.kernels, o.operation)) return k;
  return o.operation == "conv" ? list_conv(o) : o.operation == "attention" ? list_attention(o) : list_gemm(o);
}

// ---- profile ---------------------------------------------------------------------------------------
struct ProfileOptions {
  std::string operation, m, n, k, dtype = "bf16", layout = "tn", epilogue = "none", kernels, problems;
  // convolutions
  std::string d = "1", h = "56", w = "56", c = "64", t = "1", r = "3", s = "3", groups = "1", pad = "1", stride = "1", dilation = "1",
              directions = "fprop";
  // attention (heads_kv, sk and dim_v empty: as heads, sq and dim; seqlens: a packed batch of
  // variable lengths instead of --batch, --sq and --sk, which the `given` flags say were given)
  std::string heads = "16", heads_kv, sq = "1024", sk, dim = "128", dim_v, mask = "none", seqlens, seqlens_k;
  bool batch_given = false, sq_given = false, sk_given = false;
  int batch = 1, top_k = 0, warmup = 3, iterations = 100;
  bool no_flush = false, quiet = false;
  std::string compare = "none";
  std::string csv, json, emit, namespace_name = "tessera_tuned";
};

// One candidate of a problem: a configuration (and, for a GEMM, whether it runs swapped).
struct Candidate {
  std::string name;
  gemm::ConfigSpec spec;  // a convolution's: its GEMM's (the cost model and --top-k's families)
  double predicted_us = 0;
  std::function<bool()> can_implement;
  std::function<tp::Result()> run;
};

// One problem to profile: prepared on the device, then its candidates run.
struct Job {
  std::string title;  // "GEMM bf16 tn, epilogue none: M=.. N=.. K=.. batch=.." or "conv bf16 fprop: n=32 ..."
  std::function<Status()> prepare;
  std::function<std::vector<Candidate>()> candidates;  // after prepare, with their predictions
  std::function<std::optional<tp::Result>()> baseline;  // --compare (after the candidates)
  std::string static_note;                              // a line under the title, or ""
};

void progress(int done, int total, std::string const& name) {
  if (!isatty(fileno(stderr))) return;
  int const width = 30, filled = total > 0 ? done * width / total : width;
  std::fprintf(stderr, "\r  [%s%s] %d/%d %-60.60s", std::string(std::size_t(filled), '#').c_str(),
               std::string(std::size_t(width - filled), '.').c_str(), done, total, name.c_str());
  if (done == total) std::fprintf(stderr, "\r%*s\r", width + 80, "");
  std::fflush(stderr);
}

// Profiles the jobs: for each, the candidates ordered by the cost model (--top-k: its best K that
// can implement the problem, at most two per tile family), verified and timed; the table, the best,
// then the files. Exit status 2 when a run disagreed with the reference, 1 when a problem had no
// passing configuration.
int profile_jobs(ProfileOptions const& o, std::vector<Job> const& jobs, std::string const& device) {
  tp::Report report;
  report.device = device;
  report.date = today();
  int wrong = 0, problems_without = 0;
  auto const all_start = std::chrono::steady_clock::now();
  for (Job const& job : jobs) {
    auto const start = std::chrono::steady_clock::now();
    if (Status s = job.prepare(); !s) {
      error(job.title + ": " + s.message());
      return 1;
    }
    std::vector<Candidate> order = job.candidates();
    std::size_t const total = order.size();
    std::stable_sort(order.begin(), order.end(), [](Candidate const& a, Candidate const& b) { return a.predicted_us < b.predicted_us; });
    std::vector<Candidate> chosen;
    if (o.top_k > 0) {
      std::vector<Candidate> runnable;
      std::vector<tp::Prediction> predictions;
      for (auto const& v : order)
        if (v.can_implement()) {
          runnable.push_back(v);
          predictions.push_back({v.spec, v.predicted_us});
        }
      for (int i : tp::select_top_k(predictions, o.top_k)) chosen.push_back(runnable[std::size_t(i)]);
    } else {
      chosen = order;
    }
    std::vector<tp::Result> results;
    auto const runs_start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      progress(int(i), int(chosen.size()), chosen[i].name);
      tp::Result r = chosen[i].run();
      r.predicted_us = chosen[i].predicted_us;
      wrong += r.outcome == tp::Outcome::kWrong ? 1 : 0;
      results.push_back(std::move(r));
    }
    progress(int(chosen.size()), int(chosen.size()), "");
    std::optional<tp::Result> baseline = job.baseline ? job.baseline() : std::nullopt;
    auto const now = std::chrono::steady_clock::now();
    double const seconds = std::chrono::duration<double>(now - start).count();
    double const run_seconds = std::chrono::duration<double>(now - runs_start).count();
    int passed = 0, skipped = 0, wrong_here = 0, errors = 0;
    std::set<std::string> reasons;
    for (auto const& r : results) {
      passed += r.outcome == tp::Outcome::kPassed ? 1 : 0;
      skipped += r.outcome == tp::Outcome::kSkipped ? 1 : 0;
      wrong_here += r.outcome == tp::Outcome::kWrong ? 1 : 0;
      errors += r.outcome == tp::Outcome::kError ? 1 : 0;
      if (r.outcome == tp::Outcome::kSkipped) reasons.insert(r.message);
    }
    std::printf("\n%s: %zu configurations%s in %.2f s (%.2f s verifying and timing them, the rest the reference) on %s\n", job.title.c_str(),
                chosen.size(), o.top_k > 0 ? fmt::format(" (the cost model's top {} of {})", o.top_k, total).c_str() : "", seconds,
                run_seconds, report.device.c_str());
    if (!job.static_note.empty()) std::printf("%s\n", job.static_note.c_str());
    double const baseline_us = baseline && baseline->outcome == tp::Outcome::kPassed ? baseline->time_us : 0.0;
    if (!o.quiet || passed == 0) {
      std::vector<tp::Result> rows = results;
      if (baseline) rows.push_back(*baseline);
      std::printf("%s", tp::format_table(rows, baseline_us).c_str());
    }
    if (baseline && baseline_us == 0)
      std::printf("cuBLASLt: %s: %s\n", tp::outcome_name(baseline->outcome), baseline->message.c_str());
    if (passed > 0) {
      auto const best = std::min_element(results.begin(), results.end(), [](tp::Result const& a, tp::Result const& b) {
        bool const pa = a.outcome == tp::Outcome::kPassed, pb = b.outcome == tp::Outcome::kPassed;
        return pa != pb ? pa : a.time_us < b.time_us;
      });
      std::printf("best: %s %.2f us (%.1f TFLOP/s, %.0f GB/s)%s; of %zu: %d passed, %d skipped (cannot take the problem), "
                  "%d wrong, %d errors\n",
                  best->kernel.c_str(), best->time_us, best->tflops(), best->gbps(),
                  baseline_us > 0 ? fmt::format(", {:.3f}x cuBLASLt's speed (cuBLASLt {:.2f} us)", baseline_us / best->time_us, baseline_us).c_str()
                                  : "",
                  results.size(), passed, skipped, wrong_here, errors);
    }
    if (passed == 0) {
      ++problems_without;
      std::printf("no configuration ran this problem:\n");
      for (auto const& why : reasons) std::printf("  - %s\n", why.c_str());
    }
    for (auto& r : results) report.results.push_back(std::move(r));
    if (baseline) report.results.push_back(std::move(*baseline));
  }
  double const total = std::chrono::duration<double>(std::chrono::steady_clock::now() - all_start).count();
  std::printf("\nprofiled %zu runs in %.1f s\n", report.results.size(), total);
  if (!o.csv.empty())
    if (Status s = tp::write_file(o.csv, tp::to_csv(report)); !s) error(s.message());
  if (!o.json.empty())
    if (Status s = tp::write_file(o.json, tp::to_json(report)); !s) error(s.message());
  if (!o.emit.empty()) {
    std::string header;
    Status s = tp::emit_header(report, {o.namespace_name}, header);
    if (s) s = tp::write_file(o.emit, header);
    std::fprintf(s ? stdout : stderr, "%s\n", s ? ("wrote " + o.emit).c_str() : ("tessera-profile: " + s.message()).c_str());
  }
  if (wrong > 0) {
    error(fmt::format("{} configuration run(s) disagreed with the reference (outcome \"wrong\" above)", wrong));
    return 2;
  }
  return problems_without > 0 ? 1 : 0;
}

// 1 (the first failure printed) when an option did not parse or there is no GPU, else 0.
int parsed_and_gpu(std::initializer_list<Status> parsed) {
  for (Status const& s : parsed)
    if (!s) {
      error(s.detail());
      return 1;
    }
  if (Status s = tp::check_gpu(); !s) {
    error(s.message());
    return 1;
  }
  return 0;
}

tp::TimingSettings timing_of(ProfileOptions const& o) {
  tp::TimingSettings timing;
  timing.warmup = o.warmup;
  timing.max_iterations = std::max(o.iterations, timing.min_iterations);
  timing.flush_l2 = !o.no_flush;
  return timing;
}

int profile_gemm(ProfileOptions const& o) {
  if (int const e = kernels_filter_error(o.kernels, "gemm")) return e;
  tp::ProblemTypes types;
  tp::Layout layout;
  tuning::EpilogueStages epilogue;
  std::vector<int> ms, ns, ks;
  for (Status s : {tp::parse_dtype(o.dtype, types), tp::parse_layout(o.layout, layout), tuning::parse_epilogue(o.epilogue, epilogue),
                   tp::parse_int_list(o.m.empty() ? "4096" : o.m, ms), tp::parse_int_list(o.n.empty() ? "4096" : o.n, ns),
                   tp::parse_int_list(o.k.empty() ? "4096" : o.k, ks)})
    if (!s) {
      error(s.message());
      return 1;
    }
  // The problems: --problems as given, else every M x N x K of the lists.
  std::vector<std::array<int, 3>> problems;
  if (!o.problems.empty()) {
    if (Status const s = tp::parse_problems(o.problems, problems); !s) {
      error(s.message());
      return 1;
    }
  } else {
    for (int m : ms)
      for (int n : ns)
        for (int k : ks) problems.push_back({m, n, k});
  }
  if (Status s = tp::check_gpu(); !s) {
    error(s.message());
    return 1;
  }
  tuning::GemmRegistry registry;
  tp::register_all(registry);
  tp::GemmRunner runner(timing_of(o));
  std::optional<tp::CublasBaseline> cublas;
  if (o.compare == "cublas") cublas.emplace();
  int const cc = runner.compute_capability();
  tp::DeviceModel const model = runner.model();

  struct Variant {
    tuning::GemmKernel const* kernel;
    bool swap_ab;
    std::string name;
  };
  std::vector<Variant> variants;
  for (auto const& k : registry.kernels()) {
    gemm::ConfigSpec const& s = k.spec;
    if (!dtype_matches(s, types) || s.a_k_major != layout.a_k_major || s.b_k_major != layout.b_k_major) continue;
    if (s.arch_cc == 90 ? cc != 90 : cc < 80) continue;
    for (bool swap : {false, true}) {
      if (swap && !k.can_swap) continue;
      std::string const name = k.name + (swap ? "_swap" : "");
      if (!o.kernels.empty() && !tp::matches_any(o.kernels, name)) continue;
      variants.push_back({&k, swap, name});
    }
  }
  if (variants.empty()) {
    std::fprintf(stderr,
                 "tessera-profile: no configuration of this binary computes %s %s on compute capability %d.%d%s (`tessera-profile "
                 "list gemm --dtype %s --layout %s` shows the space; this binary holds space \"%s\"%s)\n",
                 types.name.c_str(), layout.name.c_str(), cc / 10, cc % 10, o.kernels.empty() ? "" : (" matching --kernels " + o.kernels).c_str(),
                 types.name.c_str(), layout.name.c_str(), tp::registry_space(),
                 std::string(tp::registry_filter()).empty() ? "" : (std::string(", filter ") + tp::registry_filter()).c_str());
    return 1;
  }

  std::vector<Job> jobs;
  for (auto const [m, n, k] : problems) {
    tp::GemmSetup const setup{types, layout, epilogue, {m, n, k, o.batch}};
    Job job;
    job.title = fmt::format("GEMM {} {}, epilogue {}: M={} N={} K={} batch={}", types.name, layout.name, tuning::epilogue_name(epilogue), m,
                            n, k, o.batch);
    job.prepare = [&runner, setup] { return runner.prepare(setup); };
    job.candidates = [&runner, &variants, &model, setup] {
      std::vector<Candidate> out;
      for (Variant const& v : variants)
        out.push_back({v.name, v.kernel->spec, tp::predict_us(v.kernel->spec, v.swap_ab, setup.shape, model),
                       [&runner, v] { return v.kernel->can_implement(runner.problem(), v.swap_ab).ok(); },
                       [&runner, v] { return runner.run(*v.kernel, v.swap_ab); }});
      return out;
    };
    if (cublas)
      job.baseline = [&runner, &cublas]() -> std::optional<tp::Result> {
        tp::Result r = runner.run(*cublas);
        r.predicted_us = 0;
        return r;
      };
    if (epilogue.any())
      job.static_note = variants.front().kernel->has_static(epilogue)
                            ? "(the epilogue runs as a static chain, as an application compiles it)"
                            : "(the epilogue runs as the run-time chain, 2 to 5 times slower than a static one: the ranking holds, the "
                              "times overstate; TESSERA_PROFILER_STATIC_EPILOGUES builds static kernels)";
    jobs.push_back(std::move(job));
  }
  return profile_jobs(o, jobs, runner.device_name());
}

// The convolutions of the size lists (every combination) or of --problems.
Status conv_problems(ProfileOptions const& o, std::vector<conv::Problem>& out) {
  if (!o.problems.empty()) return tp::parse_conv_problems(o.problems, out);
  struct Sizes {
    char const* key;
    std::string text;
    std::vector<int> values;
  };
  std::vector<Sizes> sizes = {{"n", o.n.empty() ? "32" : o.n, {}}, {"d", o.d, {}}, {"h", o.h, {}}, {"w", o.w, {}},
                              {"c", o.c, {}},                      {"k", o.k.empty() ? "64" : o.k, {}}, {"t", o.t, {}},
                              {"r", o.r, {}},                      {"s", o.s, {}}, {"groups", o.groups, {}}};
  std::size_t combinations = 1;
  for (Sizes& z : sizes) {
    if (Status const s = tp::parse_int_list(z.text, z.values); !s) return Status::invalid_argument(fmt::format("--{} {}", z.key, s.detail()));
    combinations *= z.values.size();
    if (combinations > 100000) return Status::invalid_argument("the size lists make over 100000 convolutions; give fewer values");
  }
  out.clear();
  for (std::size_t i = 0; i < combinations; ++i) {
    std::string item;
    std::size_t rest = i;
    for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {  // the last list fastest
      item = fmt::format("{}={} ", it->key, it->values[rest % it->values.size()]) + item;
      rest /= it->values.size();
    }
    item += fmt::format("pad={} stride={} dilation={}", o.pad, o.stride, o.dilation);
    conv::Problem p;
    TESSERA_RETURN_IF_ERROR(tp::parse_conv_problem(item, p));
    out.push_back(p);
  }
  return Status::success();
}

int profile_conv(ProfileOptions const& o) {
  if (int const e = kernels_filter_error(o.kernels, "conv")) return e;
  tp::ProblemTypes types;
  std::vector<conv::Direction> directions;
  std::vector<conv::Problem> problems;
  if (int const e = parsed_and_gpu({tp::parse_conv_dtype(o.dtype, types), tp::parse_directions(o.directions, directions), conv_problems(o, problems)}))
    return e;
  tuning::ConvRegistry registry;
  tp::register_all(registry);
  tp::ConvRunner runner(timing_of(o));
  int const cc = runner.compute_capability();
  tp::DeviceModel const model = runner.model();

  std::map<conv::Direction, std::vector<tuning::ConvKernel const*>> kernels;
  for (conv::Direction dir : directions) {
    for (auto const& k : registry.kernels()) {
      conv::ConfigSpec const& s = k.spec;
      if (s.direction != dir || s.x() != types.a || (s.gemm.arch_cc == 90 ? cc != 90 : cc < 80)) continue;
      if (!o.kernels.empty() && !tp::matches_any(o.kernels, k.name)) continue;
      kernels[dir].push_back(&k);
    }
    if (kernels[dir].empty()) {
      error(fmt::format("no configuration of this binary computes {} {} on compute capability {}.{}{} (`tessera-profile list conv --dtype {} "
                        "--dir {} --all` shows the space; this binary holds space \"{}\"{})",
                        conv::direction_name(dir), types.name, cc / 10, cc % 10, o.kernels.empty() ? "" : " matching --kernels " + o.kernels,
                        types.name, conv::direction_name(dir), tp::registry_conv_space(),
                        std::string(tp::registry_filter()).empty() ? "" : std::string(", filter ") + tp::registry_filter()));
      return 1;
    }
  }

  std::vector<Job> jobs;
  for (conv::Problem const& p : problems)
    for (conv::Direction dir : directions) {
      tp::ConvSetup const setup{types, dir, p};
      conv::GemmShape const g = conv::gemm_shape(p, dir);
      tp::ProblemShape const shape{int(g.m), int(g.n), int(g.k), p.groups};
      Job job;
      job.title = fmt::format("conv {} {}: {} (implicit GEMM M={} N={} K={}{})", types.name, conv::direction_name(dir),
                              tp::conv_problem_text(p), g.m, g.n, g.k, p.groups > 1 ? fmt::format(" x {} groups", p.groups) : "");
      job.prepare = [&runner, setup] { return runner.prepare(setup); };
      job.candidates = [&runner, &kernels, &model, dir, shape] {
        std::vector<Candidate> out;
        for (tuning::ConvKernel const* k : kernels[dir])
          out.push_back({k->name, k->spec.gemm, tp::predict_us(k->spec.gemm, false, shape, model),
                         [&runner, k] { return k->can_implement(runner.problem()).ok(); }, [&runner, k] { return runner.run(*k); }});
        return out;
      };
      jobs.push_back(std::move(job));
    }
  return profile_jobs(o, jobs, runner.device_name());
}

// The attention problems of the size lists (every combination) or of --problems; --seqlens makes
// each a packed batch of those lengths.
Status attention_problems(ProfileOptions const& o, std::string const& layout, std::vector<tp::AttentionShape>& out) {
  if (!o.problems.empty()) return tp::parse_attention_problems(o.problems, out);
  tp::AttentionShape base;
  base.batch = o.batch;
  TESSERA_RETURN_IF_ERROR(tp::parse_attention_mask(o.mask, base.mask));
  TESSERA_RETURN_IF_ERROR(tp::parse_attention_layout(layout, base.layout));
  std::vector<int> seqlens_q, seqlens_k;
  if (o.seqlens.empty() && !o.seqlens_k.empty())
    return Status::invalid_argument("--seqlens-k gives the keys' lengths of a packed batch; give --seqlens (the queries') too");
  if (!o.seqlens.empty()) {
    if (o.batch_given || o.sq_given || o.sk_given)
      return Status::invalid_argument("--seqlens gives the packed batch and its lengths; leave out --batch, --sq and --sk (--seqlens-k gives the "
                                      "keys' lengths where they differ from the queries')");
    TESSERA_RETURN_IF_ERROR(tp::parse_seqlens("--seqlens", o.seqlens, seqlens_q));
    if (!o.seqlens_k.empty()) TESSERA_RETURN_IF_ERROR(tp::parse_seqlens("--seqlens-k", o.seqlens_k, seqlens_k));
    if (Status const s = tp::set_seqlens(base, seqlens_q, seqlens_k); !s)
      return Status::invalid_argument(s.detail() + (base.layout != tessera::attention::Layout::kBSHD ? " (--layout bshd)" : ""));
  }
  struct Sizes {
    char const* option;
    std::string text;
    int tp::AttentionShape::*field;
    std::vector<int> values;
  };
  // (an empty heads_kv, sk or dim_v follows heads, sq or dim: resolved per combination below)
  std::vector<Sizes> sizes = {{"--heads", o.heads, &tp::AttentionShape::heads, {}},      {"--heads-kv", o.heads_kv, &tp::AttentionShape::heads_kv, {}},
                              {"--sq", o.sq, &tp::AttentionShape::seqlen_q, {}},        {"--sk", o.sk, &tp::AttentionShape::seqlen_k, {}},
                              {"--dim", o.dim, &tp::AttentionShape::head_dim, {}},      {"--dim-v", o.dim_v, &tp::AttentionShape::head_dim_v, {}}};
  std::size_t combinations = 1;
  for (Sizes& z : sizes) {
    if (z.text.empty()) {
      z.values = {0};
      continue;
    }
    if (Status const s = tp::parse_int_list(z.text, z.values); !s) return Status::invalid_argument(fmt::format("{} {}", z.option, s.detail()));
    combinations *= z.values.size();
    if (combinations > 100000) return Status::invalid_argument("the size lists make over 100000 attention problems; give fewer values");
  }
  out.clear();
  for (std::size_t i = 0; i < combinations; ++i) {
    tp::AttentionShape a = base;
    std::size_t rest = i;
    for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {  // the last list fastest
      a.*(it->field) = it->values[rest % it->values.size()];
      rest /= it->values.size();
    }
    if (a.heads_kv == 0) a.heads_kv = a.heads;
    if (a.seqlen_k == 0) a.seqlen_k = a.seqlen_q;
    if (a.head_dim_v == 0) a.head_dim_v = a.head_dim;
    if (base.variable()) TESSERA_RETURN_IF_ERROR(tp::set_seqlens(a, seqlens_q, seqlens_k));  // (the lists set sq and sk)
    if (Status const s = tessera::attention::check(a.problem()); !s) return Status::invalid_argument(tp::attention_problem_text(a) + ": " + s.detail());
    out.push_back(a);
  }
  return Status::success();
}

int profile_attention(ProfileOptions const& o, std::string const& layout) {
  if (int const e = kernels_filter_error(o.kernels, "attention")) return e;
  tp::ProblemTypes types;
  std::vector<tp::AttentionShape> problems;
  if (int const e = parsed_and_gpu({tp::parse_attention_dtype(o.dtype, types), attention_problems(o, layout, problems)})) return e;
  tuning::AttentionRegistry registry;
  tp::register_all(registry);
  tp::AttentionRunner runner(timing_of(o));
  int const cc = runner.compute_capability();
  tp::DeviceModel const model = runner.model();

  std::vector<Job> jobs;
  for (tp::AttentionShape const& a : problems) {
    std::vector<tuning::AttentionKernel const*> kernels;
    for (auto const& k : registry.kernels()) {
      tessera::attention::ConfigSpec const& s = k.spec.config;
      if (s.element != types.a || k.spec.mask != a.mask.kind || s.head_dim != a.head_dim || s.head_dim_v != a.head_dim_v) continue;
      if (s.arch_cc == 90 ? cc != 90 : cc < s.arch_cc) continue;
      if (!o.kernels.empty() && !tp::matches_any(o.kernels, k.name)) continue;
      kernels.push_back(&k);
    }
    if (kernels.empty()) {
      error(fmt::format("no configuration of this binary computes {} attention with head dims {} / {} and mask {} on compute capability "
                        "{}.{}{} (the space's kernels: the Hopper kernel's for compute capability 9.0 and the sm80 kernel's for 8.0 and "
                        "later, at head dims 64, 128, 256 and 192 / 128; e4m3 on Hopper at 128, 256 and 192 / 128; the kernels take any "
                        "multiple of 8 up to 256: add a spec to tuning/attention_space.hpp for others; `tessera-profile list attention "
                        "--dtype {} --all` shows the space; this binary holds space \"{}\"{})",
                        types.name, a.head_dim, a.head_dim_v, tp::attention_mask_text(a.mask), cc / 10, cc % 10,
                        o.kernels.empty() ? "" : " matching --kernels " + o.kernels, types.name, tp::registry_attention_space(),
                        std::string(tp::registry_filter()).empty() ? "" : std::string(", filter ") + tp::registry_filter()));
      return 1;
    }
    tp::AttentionSetup const setup{types, a};
    Job job;
    job.title = fmt::format("attention {} {}: {} ({:.3g} GFLOP per run)", types.name, tp::attention_mask_text(a.mask),
                            tp::attention_problem_text(a), a.flops() * 1e-9);
    job.prepare = [&runner, setup] { return runner.prepare(setup); };
    job.candidates = [&runner, kernels, &model, a] {
      std::vector<Candidate> out;
      for (tuning::AttentionKernel const* k : kernels)
        out.push_back({k->name, tp::attention_family(k->spec.config), tp::predict_attention_us(k->spec.config, a, model),
                       [&runner, k] { return k->can_implement(runner.problem()).ok(); }, [&runner, k] { return runner.run(*k); }});
      return out;
    };
    jobs.push_back(std::move(job));
  }
  return profile_jobs(o, jobs, runner.device_name());
}

// The options only some operations take: each operation refuses the others'.
struct OperationOptions {
  std::vector<std::pair<CLI::Option*, char const*>> gemm, conv, attention, gemm_attention, gemm_conv;
};

int run_profile(ProfileOptions const& o, OperationOptions const& only, CLI::Option* layout_option) {
  auto const joined = [](std::vector<std::pair<CLI::Option*, char const*>> a, std::vector<std::pair<CLI::Option*, char const*>> const& b,
                         std::vector<std::pair<CLI::Option*, char const*>> const& c = {}) {
    a.insert(a.end(), b.begin(), b.end());
    a.insert(a.end(), c.begin(), c.end());
    return a;
  };
  std::string e;
  if (o.operation == "conv")
    e = foreign_option(joined(only.gemm, only.gemm_attention, only.attention), "profile conv",
                       "a convolution takes --n --h --w [--d] --c --k --r --s [--t] --pad --stride --dilation --groups --dir --dtype, or "
                       "--problems");
  else if (o.operation == "attention")
    e = foreign_option(joined(only.gemm, only.conv, only.gemm_conv), "profile attention",
                       "attention takes --batch --heads --heads-kv --sq --sk (or --seqlens [--seqlens-k]) --dim --dim-v --mask --layout --dtype, "
                       "or --problems");
  else
    e = foreign_option(joined(only.conv, only.attention), "profile gemm", "a GEMM takes --m --n --k (or --problems), --batch, --dtype, --layout, --epilogue");
  if (!e.empty()) {
    error(e);
    return 1;
  }
  if (o.operation == "attention") return profile_attention(o, layout_option->count() > 0 ? o.layout : "bshd");
  return o.operation == "conv" ? profile_conv(o) : profile_gemm(o);
}

// ---- emit ------------------------------------------------------------------------------------------
int run_emit(std::vector<std::string> const& inputs, std::string const& output, std::string const& namespace_name) {
  tp::Report merged;
  for (std::string const& input : inputs) {
    std::string text;
    tp::Report report;
    Status s = tp::read_file(input, text);
    if (s) s = text.find("\"tool\"") != std::string::npos ? tp::from_json(text, report) : tp::from_csv(text, report);
    if (!s) {
      std::fprintf(stderr, "tessera-profile emit: %s: %s\n", input.c_str(), s.message().c_str());
      return 1;
    }
    if (merged.device.empty()) merged.device = report.device;
    if (merged.date.empty()) merged.date = report.date;
    for (auto& r : report.results) merged.results.push_back(std::move(r));
  }
  std::string header;
  Status s = tp::emit_header(merged, {namespace_name}, header);
  if (s && !output.empty()) s = tp::write_file(output, header);
  if (!s) {
    std::fprintf(stderr, "tessera-profile emit: %s\n", s.message().c_str());
    return 1;
  }
  if (output.empty()) std::printf("%s", header.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tessera-profile: list, verify and time Tessera's GEMM, convolution and attention configurations; emit the winners for "
               "gemm::Tuned, conv::Tuned and attention::Tuned"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tessera-profile ") + TESSERA_VERSION);

  ListOptions lo;
  CLI::App* list = app.add_subcommand("list", "the configurations this binary can run, with their resources (--all: the whole space; --invalid: why some were dropped); no GPU needed");
  list->add_option("operation", lo.operation, "gemm, conv or attention")->required()->check(kOperation);
  list->add_option("--arch", lo.arch, "only sm_<arch> configurations: 80 or 90")->check(CLI::IsMember({80, 90}));
  list->add_option("--dtype", lo.dtype, "only these element types: " + tp::dtype_choices() + " (conv: bf16, f16; attention: bf16, f16, e4m3)")
      ->check(checked([](std::string const& t) { tp::ProblemTypes x; return tp::parse_dtype(t, x); }, "DTYPE"));
  CLI::Option* list_layout = list->add_option("--layout", lo.layout, "gemm: only this layout: tn, nt, nn, tt")
                                 ->check(checked([](std::string const& t) { tp::Layout x; return tp::parse_layout(t, x); }, "LAYOUT"));
  CLI::Option* list_dir = list->add_option("--dir", lo.directions, "conv: only these directions: fprop, dgrad, wgrad (comma-separated)")
                              ->check(checked([](std::string const& t) { std::vector<conv::Direction> x; return tp::parse_directions(t, x); }, "DIR"));
  list->add_option("--kernels", lo.kernels, "only names matching these globs (comma-separated, * and ?)");
  CLI::Option* all = list->add_flag("--all", lo.all, "every configuration of the space (default: those built into this binary)");
  CLI::Option* invalid = list->add_flag("--invalid", lo.invalid_only, "only the dropped configurations of the space, with why");
  list->add_flag("--valid", lo.valid_only, "only the valid configurations of the space (built or not)")->excludes(all)->excludes(invalid);
  all->excludes(invalid);
  list->add_option("--json", lo.json, "also write the configurations shown (name, shared memory, threads, registers, status) as JSON to this file");

  ProfileOptions po;
  CLI::App* profile = app.add_subcommand("profile", "verify each configuration on the problem(s) against a device reference, then time it");
  profile->add_option("operation", po.operation, "gemm, conv or attention")->required()->check(kOperation);
  auto const ints = checked([](std::string const& t) { std::vector<int> v; return tp::parse_int_list(t, v); }, "LIST");
  CLI::Option* m_option = profile->add_option("--m", po.m, "gemm: M: a value, a list (16,128,4096) or a range start:end:step (default 4096)")
                              ->check(ints);
  CLI::Option* n_option =
      profile->add_option("--n", po.n, "gemm: N, as --m (default 4096); conv: the batch of images, as --m (default 32)")->check(ints);
  CLI::Option* k_option =
      profile->add_option("--k", po.k, "gemm: K, as --m (default 4096); conv: the filters (output channels), as --m (default 64)")->check(ints);
  // A convolution's other sizes (each a value, a list or a range; every combination is profiled).
  std::vector<std::pair<CLI::Option*, char const*>> conv_only;
  for (auto [name, field, help] : {std::tuple{"--d", &po.d, "conv: the input's depth (3-D)"}, std::tuple{"--h", &po.h, "conv: the input's height"},
                                   std::tuple{"--w", &po.w, "conv: the input's width"}, std::tuple{"--c", &po.c, "conv: input channels"},
                                   std::tuple{"--t", &po.t, "conv: the filter's depth (3-D)"}, std::tuple{"--r", &po.r, "conv: the filter's height"},
                                   std::tuple{"--s", &po.s, "conv: the filter's width"}, std::tuple{"--groups", &po.groups, "conv: groups"}})
    conv_only.push_back({profile->add_option(name, *field, std::string(help) + ", as --m")->check(ints)->capture_default_str(), name});
  for (auto [name, field, help] :
       {std::tuple{"--pad", &po.pad, "conv: zero padding on each side: V (each spatial dimension), HxW or DxHxW"},
        std::tuple{"--stride", &po.stride, "conv: the stride: V, HxW or DxHxW"}, std::tuple{"--dilation", &po.dilation, "conv: the dilation: V, HxW or DxHxW"}})
    conv_only.push_back({profile->add_option(name, *field, help)->capture_default_str(), name});
  conv_only.push_back({profile->add_option("--dir", po.directions, "conv: fprop, dgrad, wgrad or a comma-separated list of them")
                           ->check(checked([](std::string const& t) { std::vector<conv::Direction> x; return tp::parse_directions(t, x); }, "DIR"))
                           ->capture_default_str(),
                       "--dir"});
  CLI::Option* problems_option = profile->add_option(
      "--problems", po.problems,
      "explicit problems instead of every combination of the lists: gemm MxNxK,MxNxK,...; conv and attention key=value items, problems "
      "separated by ';' ('n=32 h=56 w=56 c=64 k=64 r=3 s=3 pad=1; ...', 'batch=2 heads=16 heads_kv=4 sq=1024 sk=1024 dim=128 "
      "mask=causal; ...'); or @file (one or more a line)");
  for (CLI::Option* option : {m_option, n_option, k_option}) problems_option->excludes(option);
  for (std::size_t i = 0; i + 1 < conv_only.size(); ++i) problems_option->excludes(conv_only[i].first);  // all but --dir
  CLI::Option* batch_option = profile->add_option("--batch", po.batch, "gemm: batch count; attention: the batch entries (1 to 65535)")
                                  ->check(count("--batch", 1, 65535))
                                  ->capture_default_str();
  profile->add_option("--dtype", po.dtype, "element types: " + tp::dtype_choices() + " (conv: bf16, f16; attention: bf16, f16, e4m3)")
      ->check(checked([](std::string const& t) { tp::ProblemTypes x; return tp::parse_dtype(t, x); }, "DTYPE"))
      ->capture_default_str();
  CLI::Option* layout_option =
      profile
          ->add_option("--layout", po.layout, "gemm: tn (row-major A, column-major B), nt, nn, tt; attention: bshd (default) or bhsd")
          ->check(checked(
              [](std::string const& t) {
                tp::Layout x;
                tessera::attention::Layout y;
                Status const gemm_layout = tp::parse_layout(t, x);
                if (gemm_layout || tp::parse_attention_layout(t, y)) return Status::success();
                return Status::invalid_argument(gemm_layout.detail() + "; attention's are bshd and bhsd");
              },
              "LAYOUT"))
          ->capture_default_str();
  // Attention's sizes (each a value, a list or a range; every combination is profiled) and mask.
  std::vector<std::pair<CLI::Option*, char const*>> attention_only;
  for (auto [name, field, help] :
       {std::tuple{"--heads", &po.heads, "attention: query heads, as --m (default 16)"},
        std::tuple{"--heads-kv", &po.heads_kv, "attention: key and value heads (a divisor of --heads: GQA; 1: MQA), as --m (default: --heads)"},
        std::tuple{"--sq", &po.sq, "attention: the queries' sequence length, as --m (default 1024)"},
        std::tuple{"--sk", &po.sk, "attention: the keys' sequence length, as --m (default: --sq)"},
        std::tuple{"--dim", &po.dim, "attention: the head dimension of Q and K, as --m (default 128)"},
        std::tuple{"--dim-v", &po.dim_v, "attention: the head dimension of V and O, as --m (default: --dim)"}})
    attention_only.push_back({profile->add_option(name, *field, help)->check(ints), name});
  CLI::Option* sq_option = attention_only[2].first;
  CLI::Option* sk_option = attention_only[3].first;
  auto const lengths = [](char const* option) {
    return checked([option](std::string const& t) { std::vector<int> v; return tp::parse_seqlens(option, t, v); }, "LENGTHS");
  };
  attention_only.push_back({profile->add_option("--seqlens", po.seqlens,
                                                "attention: a packed batch of variable lengths (cu_seqlens), its sequences' lengths "
                                                "(512,1024,0,1,3000; 0: empty), instead of --batch, --sq and --sk")
                                ->check(lengths("--seqlens")),
                            "--seqlens"});
  attention_only.push_back({profile->add_option("--seqlens-k", po.seqlens_k,
                                                "attention: the keys' lengths of the --seqlens batch where they differ from the queries' "
                                                "(as many)")
                                ->check(lengths("--seqlens-k")),
                            "--seqlens-k"});
  attention_only.push_back({profile->add_option("--mask", po.mask, "attention: none, causal (bottom-right aligned), causal-tl (top-left) or window:L,R")
                                ->check(checked([](std::string const& t) { tp::AttentionMaskSetting x; return tp::parse_attention_mask(t, x); }, "MASK"))
                                ->capture_default_str(),
                            "--mask"});
  for (auto const& [option, name] : attention_only) problems_option->excludes(option);
  CLI::Option* epilogue_option = profile->add_option("--epilogue", po.epilogue, "gemm: fused stages joined by _ or +: " + tuning::epilogue_stage_list())
                                     ->check(checked([](std::string const& t) { tuning::EpilogueStages x; return tuning::parse_epilogue(t, x); }, "EPILOGUE"))
                                     ->capture_default_str();
  profile->add_option("--kernels", po.kernels, "only configurations whose names match these globs (comma-separated)");
  profile->add_option("--top-k", po.top_k, "time only the K best configurations by the static cost model (0: all)")->check(count("--top-k", 0));
  profile->add_option("--warmup", po.warmup, "untimed runs before timing")->check(count("--warmup", 0))->capture_default_str();
  profile->add_option("--iterations", po.iterations, "at most this many timed runs (at least 10; about 30 ms of them)")
      ->check(count("--iterations", 1))->capture_default_str();
  CLI::Option* compare_option =
      profile->add_option("--compare", po.compare,
                          "gemm: also run the problem through this library, verified and timed the same way, with a speed-ratio column: "
                          "cublas (cuBLASLt, with its fused bias / ReLU / GELU epilogues) or none")
          ->check(CLI::IsMember({"cublas", "none"}))
          ->capture_default_str();
  profile->add_flag("--no-flush", po.no_flush, "do not flush the L2 cache before each timed run");
  profile->add_flag("--quiet", po.quiet, "no table per problem (only the summary and the files)");
  profile->add_option("--csv", po.csv, "write every result as CSV to this file");
  profile->add_option("--json", po.json, "write every result as JSON to this file (what emit reads)");
  profile->add_option("--emit", po.emit, "write the winners as a gemm::Tuned / conv::Tuned / attention::Tuned header to this file");
  profile->add_option("--namespace", po.namespace_name, "the emitted header's namespace")->capture_default_str();
  OperationOptions only;
  only.gemm = {{m_option, "--m"}, {epilogue_option, "--epilogue"}, {compare_option, "--compare"}};
  only.gemm_attention = {{batch_option, "--batch"}, {layout_option, "--layout"}};
  only.gemm_conv = {{n_option, "--n"}, {k_option, "--k"}};
  only.conv = conv_only;
  only.attention = attention_only;

  std::vector<std::string> emit_inputs;
  std::string emit_output, emit_namespace = "tessera_tuned";
  CLI::App* emit = app.add_subcommand("emit", "write the winners of a profile (its --json or --csv file) as a header for gemm::Tuned, conv::Tuned and attention::Tuned");
  emit->add_option("results", emit_inputs, "results files of `profile --json` or `--csv` (merged)")->required();
  emit->add_option("-o,--output", emit_output, "the header to write (default: standard output)");
  emit->add_option("--namespace", emit_namespace, "the header's namespace")->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  po.batch_given = batch_option->count() > 0;
  po.sq_given = sq_option->count() > 0;
  po.sk_given = sk_option->count() > 0;
  if (list->parsed()) return run_list(lo, list_layout, list_dir);
  if (profile->parsed()) return run_profile(po, only, layout_option);
  return run_emit(emit_inputs, emit_output, emit_namespace);
}
