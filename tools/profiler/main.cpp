// tessera-profile: lists Tessera's GEMM configurations (no GPU needed), profiles them on problems
// (verified against a device reference, then timed), and emits the winners as a C++ header for
// gemm::Tuned. See docs/profiler.md.
//
//   tessera-profile list gemm --arch 90 --dtype bf16
//   tessera-profile profile gemm --m 16,128,4096 --n 4096 --k 4096 --dtype bf16 --layout tn --json out.json
//   tessera-profile emit out.json -o my_tuned.hpp --namespace my_tuned
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cost_model.hpp"
#include "emit.hpp"
#include "options.hpp"
#include "registry_all.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "tessera/tuning/gemm_space.hpp"

namespace tp = tessera::profiler;
namespace tuning = tessera::tuning;
namespace gemm = tessera::gemm;
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

// A --kernels filter that matches no configuration of the whole space is an error that names
// the nearest names; 0 where it matches some (or is empty).
int kernels_filter_error(std::string const& kernels) {
  if (kernels.empty()) return 0;
  auto const space = tuning::gemm_space(tuning::SpaceSize::kDefault);
  std::vector<std::string> names;
  for (int i = 0; i < space.size; ++i) {
    names.push_back(tuning::name(space.items[i].spec));
    if (tp::matches_any(kernels, names.back())) return 0;
  }
  std::string near;
  for (auto const& n : tp::nearest_names(kernels, names, 3)) near += (near.empty() ? "" : ", ") + n;
  std::fprintf(stderr, "tessera-profile: --kernels %s matches no configuration of the space; the nearest: %s (tessera-profile list "
               "gemm shows them all; * matches any run of characters, ? one)\n",
               kernels.c_str(), near.c_str());
  return 2;
}

CLI::Validator const kOperation = checked(
    [](std::string const& t) {
      return t == "gemm" ? Status::success()
                         : Status::invalid_argument("unknown operation '" + t + "'; the operations are: gemm");
    },
    "OPERATION");

std::string today() {
  std::time_t const now = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

bool dtype_matches(gemm::ConfigSpec const& s, tp::ProblemTypes const& t) { return s.a == t.a && s.b == t.b && s.d == t.d; }

// ---- list ------------------------------------------------------------------------------------------
struct ListOptions {
  std::string operation, dtype, layout, kernels, json;
  int arch = 0;
  bool all = false, invalid_only = false, valid_only = false;
};

// The CMake command that builds the valid configurations this binary lacks (only the settings that
// left them out), or "" when none is missing for a reason CMake controls.
std::string cmake_line_for_missing(bool reduced_space_missing, bool filter_missing, bool sm90_missing) {
  std::string flags;
  if (reduced_space_missing) flags += " -DTESSERA_PROFILER_SPACE=default";
  if (filter_missing) flags += " -DTESSERA_PROFILER_KERNELS=";
  if (sm90_missing) flags += " -DCMAKE_CUDA_ARCHITECTURES=\"80;90a\"";
  if (flags.empty()) return "";
  return fmt::format("cmake {}{} && cmake --build {} --target tessera-profile", TESSERA_BINARY_DIR, flags, TESSERA_BINARY_DIR);
}

int run_list(ListOptions const& o) {
  if (int const e = kernels_filter_error(o.kernels)) return e;
  tuning::GemmRegistry registry;
  tp::register_all(registry);
  tp::ProblemTypes types;
  tp::Layout layout;
  // (CLI11 has checked both)
  if (!o.dtype.empty() && !tp::parse_dtype(o.dtype, types)) return 1;
  if (!o.layout.empty() && !tp::parse_layout(o.layout, layout)) return 1;
  bool const gpu = tp::check_gpu().ok();
  auto const space = tuning::gemm_space(tuning::SpaceSize::kDefault);
  auto const reduced = tuning::gemm_space(tuning::SpaceSize::kReduced);
  auto const in_reduced = [&](std::string const& name) {
    for (int i = 0; i < reduced.size; ++i)
      if (tuning::name(reduced.items[i].spec) == name) return true;
    return false;
  };
  int shown = 0, valid = 0, built = 0, dropped = 0, amd = 0, missing = 0;
  bool reduced_missing = false, filter_missing = false, sm90_missing = false;
  std::string rows;
  nlohmann::json listed = nlohmann::json::array();  // --json: the rows shown
  for (int i = 0; i < space.size; ++i) {
    tuning::Candidate const& c = space.items[i];
    gemm::ConfigSpec const& s = c.spec;
    std::string const name = tuning::name(s);
    if (o.arch != 0 && s.arch_cc != o.arch) continue;
    if (!o.dtype.empty() && !dtype_matches(s, types)) continue;
    if (!o.layout.empty() && (s.a_k_major != layout.a_k_major || s.b_k_major != layout.b_k_major)) continue;
    if (!o.kernels.empty() && !tp::matches_any(o.kernels, name)) continue;
    tuning::GemmKernel const* const entry = c.valid() ? registry.find(name) : nullptr;
    // The totals of the space under the filters; then the rows this listing shows.
    if (!c.valid()) {
      ++dropped;
    } else {
      ++valid;
      if (entry != nullptr) ++built;
      else if (s.amd()) ++amd;
      else {
        ++missing;
        bool const space_out = std::string(tp::registry_space()) == "reduced" && !in_reduced(name);
        bool const filter_out = !space_out && !std::string(tp::registry_filter()).empty() &&
                                !tp::matches_any(tp::registry_filter(), name);
        reduced_missing |= space_out;
        filter_missing |= filter_out;
        sm90_missing |= !space_out && !filter_out && s.warp_specialized() && tp::registry_sm90_left_out() > 0;
      }
    }
    bool const show = o.invalid_only ? !c.valid() : o.valid_only ? c.valid() : o.all ? true : entry != nullptr;
    if (!show) continue;
    ++shown;
    // Registers and local memory (spill) bytes per thread as the GPU reports them for the built
    // kernels; the schedule's register allowance is what ptxas was given, not what it used.
    std::string regs = "-";
    nlohmann::json registers = nullptr, local_bytes = nullptr;
    if (entry != nullptr && gpu) {
      cudaFuncAttributes a{};
      if (entry->attributes(a)) {
        regs = fmt::format("{}/{}", a.numRegs, a.localSizeBytes);
        registers = a.numRegs;
        local_bytes = a.localSizeBytes;
      } else {
        regs = "no code";
      }
    }
    std::string status;
    if (!c.valid()) status = std::string("dropped: ") + gemm::config_error_message(c.error);
    else if (entry != nullptr) status = "built";
    else if (s.amd()) status = "valid (AMD: builds with hipcc, not into this binary)";
    else status = "valid, not built into this binary";
    rows += fmt::format("{:<48} {:>8.1f} {:>7} {:>9}  {}\n", name, gemm::smem_bytes(s) / 1024.0, s.threads(), regs, status);
    listed.push_back({{"name", name},
                      {"smem_bytes", gemm::smem_bytes(s)},
                      {"threads", s.threads()},
                      {"registers", registers},
                      {"local_bytes", local_bytes},
                      {"valid", c.valid()},
                      {"built", entry != nullptr},
                      {"status", status}});
  }
  std::printf("%s", fmt::format("{:<48} {:>8} {:>7} {:>9}  {}\n", "configuration", "smem KiB", "threads", "regs/spill", "status").c_str());
  std::printf("%s", rows.c_str());
  std::string const filter = tp::registry_filter();
  std::printf("%s", fmt::format("\n{} configurations shown{}. The space{}: {} valid ({} built into this binary: space \"{}\"{}), {} dropped.\n",
                                shown, !o.all && !o.valid_only && !o.invalid_only ? " (those built into this binary; --all shows every one)" : "",
                                o.arch || !o.dtype.empty() || !o.layout.empty() || !o.kernels.empty() ? " under these filters" : "", valid,
                                built, tp::registry_space(), filter.empty() ? "" : fmt::format(", filter \"{}\"", filter), dropped)
                        .c_str());
  std::printf("%s\n", gpu ? "regs/spill: registers and local-memory bytes per thread of each built kernel, as the GPU reports them."
                          : "regs/spill: reported for built kernels on a machine with a GPU (none here).");
  if (missing > 0) {
    std::string const line = cmake_line_for_missing(reduced_missing, filter_missing, sm90_missing);
    std::printf("%d valid NVIDIA configurations are not built into this binary%s\n", missing,
                line.empty() ? "." : ("; to build them: " + line).c_str());
  }
  if (amd > 0) std::printf("%d valid AMD (gfx9) configurations build with hipcc (docs/building.md), never into this binary.\n", amd);
  if (dropped > 0 && !o.invalid_only) std::printf("`--invalid` shows why the %d dropped ones were dropped.\n", dropped);
  if (!o.json.empty()) {
    nlohmann::json const j = {{"configurations", listed}, {"shown", shown},     {"valid", valid},
                              {"built", built},           {"dropped", dropped}, {"not_built", missing},
                              {"amd", amd},               {"space", tp::registry_space()}, {"filter", filter}};
    if (Status const w = tp::write_file(o.json, j.dump(2) + "\n"); !w) {
      std::fprintf(stderr, "tessera-profile list: %s\n", w.message().c_str());
      return 1;
    }
  }
  return 0;
}

// ---- profile ---------------------------------------------------------------------------------------
struct ProfileOptions {
  std::string operation, m = "4096", n = "4096", k = "4096", dtype = "bf16", layout = "tn", epilogue = "none", kernels, problems;
  int batch = 1, top_k = 0, warmup = 3, iterations = 100;
  bool no_flush = false, quiet = false;
  std::string compare = "none";
  std::string csv, json, emit, namespace_name = "tessera_tuned";
};

struct Variant {
  tuning::GemmKernel const* kernel;
  bool swap_ab;
  std::string name;
  double predicted_us = 0;
};

void progress(int done, int total, std::string const& name) {
  if (!isatty(fileno(stderr))) return;
  int const width = 30, filled = total > 0 ? done * width / total : width;
  std::fprintf(stderr, "\r  [%s%s] %d/%d %-60.60s", std::string(std::size_t(filled), '#').c_str(),
               std::string(std::size_t(width - filled), '.').c_str(), done, total, name.c_str());
  if (done == total) std::fprintf(stderr, "\r%*s\r", width + 80, "");
  std::fflush(stderr);
}

int run_profile(ProfileOptions const& o) {
  if (int const e = kernels_filter_error(o.kernels)) return e;
  tp::ProblemTypes types;
  tp::Layout layout;
  tuning::EpilogueStages epilogue;
  std::vector<int> ms, ns, ks;
  for (Status s : {tp::parse_dtype(o.dtype, types), tp::parse_layout(o.layout, layout), tuning::parse_epilogue(o.epilogue, epilogue),
                   tp::parse_int_list(o.m, ms), tp::parse_int_list(o.n, ns), tp::parse_int_list(o.k, ks)})
    if (!s) {
      std::fprintf(stderr, "tessera-profile: %s\n", s.message().c_str());
      return 1;
    }
  // The problems: --problems as given, else every M x N x K of the lists.
  std::vector<std::array<int, 3>> problems;
  if (!o.problems.empty()) {
    if (Status const s = tp::parse_problems(o.problems, problems); !s) {
      std::fprintf(stderr, "tessera-profile: %s\n", s.message().c_str());
      return 1;
    }
  } else {
    for (int m : ms)
      for (int n : ns)
        for (int k : ks) problems.push_back({m, n, k});
  }
  if (Status s = tp::check_gpu(); !s) {
    std::fprintf(stderr, "tessera-profile: %s\n", s.message().c_str());
    return 1;
  }
  tuning::GemmRegistry registry;
  tp::register_all(registry);
  tp::TimingSettings timing;
  timing.warmup = o.warmup;
  timing.max_iterations = std::max(o.iterations, timing.min_iterations);
  timing.flush_l2 = !o.no_flush;
  tp::GemmRunner runner(timing);
  std::optional<tp::CublasBaseline> cublas;
  if (o.compare == "cublas") cublas.emplace();
  int const cc = runner.compute_capability();
  tp::DeviceModel const model = runner.model();

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

  tp::Report report;
  report.device = runner.device_name();
  report.date = today();
  int wrong = 0, problems_without = 0;
  auto const all_start = std::chrono::steady_clock::now();
  for (auto const [m, n, k] : problems) {
    auto const start = std::chrono::steady_clock::now();
    tp::GemmSetup setup{types, layout, epilogue, {m, n, k, o.batch}};
    if (Status s = runner.prepare(setup); !s) {
      std::fprintf(stderr, "tessera-profile: M=%d N=%d K=%d: %s\n", m, n, k, s.message().c_str());
      return 1;
    }
    for (auto& v : variants) v.predicted_us = tp::predict_us(v.kernel->spec, v.swap_ab, setup.shape, model);
    std::vector<Variant> order = variants;
    std::stable_sort(order.begin(), order.end(), [](Variant const& a, Variant const& b) { return a.predicted_us < b.predicted_us; });
    // --top-k: the K best by the model (at most 2 per tile family) among those that can run the problem.
    std::vector<Variant> chosen;
    std::vector<tp::Result> results;
    if (o.top_k > 0) {
      std::vector<Variant> runnable;
      std::vector<tp::Prediction> predictions;
      for (auto const& v : order)
        if (v.kernel->can_implement(runner.problem(), v.swap_ab)) {
          runnable.push_back(v);
          predictions.push_back({v.kernel->spec, v.predicted_us});
        }
      for (int i : tp::select_top_k(predictions, o.top_k)) chosen.push_back(runnable[std::size_t(i)]);
    } else {
      chosen = order;
    }
    auto const runs_start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      progress(int(i), int(chosen.size()), chosen[i].name);
      tp::Result r = runner.run(*chosen[i].kernel, chosen[i].swap_ab);
      r.predicted_us = chosen[i].predicted_us;
      wrong += r.outcome == tp::Outcome::kWrong ? 1 : 0;
      results.push_back(std::move(r));
    }
    progress(int(chosen.size()), int(chosen.size()), "");
    // --compare cublas: cuBLASLt on the same operands, verified and timed the same way.
    std::optional<tp::Result> baseline;
    if (cublas) {
      baseline = runner.run(*cublas);
      baseline->predicted_us = 0;
    }
    auto const now = std::chrono::steady_clock::now();
    double const seconds = std::chrono::duration<double>(now - start).count();
    double const run_seconds = std::chrono::duration<double>(now - runs_start).count();
    int passed = 0, skipped = 0, wrong = 0, errors = 0;
    std::set<std::string> reasons;
    for (auto const& r : results) {
      passed += r.outcome == tp::Outcome::kPassed ? 1 : 0;
      skipped += r.outcome == tp::Outcome::kSkipped ? 1 : 0;
      wrong += r.outcome == tp::Outcome::kWrong ? 1 : 0;
      errors += r.outcome == tp::Outcome::kError ? 1 : 0;
      if (r.outcome == tp::Outcome::kSkipped) reasons.insert(r.message);
    }
    std::printf("\nGEMM %s %s, epilogue %s: M=%d N=%d K=%d batch=%d: %zu configurations%s in %.2f s (%.2f s verifying and "
                "timing them, the rest the reference) on %s\n",
                types.name.c_str(), layout.name.c_str(), tuning::epilogue_name(epilogue).c_str(), m, n, k, o.batch, chosen.size(),
                o.top_k > 0 ? fmt::format(" (the cost model's top {} of {})", o.top_k, variants.size()).c_str() : "", seconds,
                run_seconds, report.device.c_str());
    if (epilogue.any())
      std::printf("%s\n", variants.front().kernel->has_static(epilogue)
                              ? "(the epilogue runs as a static chain, as an application compiles it)"
                              : "(the epilogue runs as the run-time chain, 2 to 5 times slower than a static one: the "
                                "ranking holds, the times overstate; TESSERA_PROFILER_STATIC_EPILOGUES builds static kernels)");
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
                  results.size(), passed, skipped, wrong, errors);
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
    if (Status s = tp::write_file(o.csv, tp::to_csv(report)); !s) std::fprintf(stderr, "tessera-profile: %s\n", s.message().c_str());
  if (!o.json.empty())
    if (Status s = tp::write_file(o.json, tp::to_json(report)); !s) std::fprintf(stderr, "tessera-profile: %s\n", s.message().c_str());
  if (!o.emit.empty()) {
    std::string header;
    Status s = tp::emit_header(report, {o.namespace_name}, header);
    if (s) s = tp::write_file(o.emit, header);
    std::fprintf(s ? stdout : stderr, "%s\n", s ? ("wrote " + o.emit).c_str() : ("tessera-profile: " + s.message()).c_str());
  }
  if (wrong > 0) {
    std::fprintf(stderr, "tessera-profile: %d configuration run(s) disagreed with the reference (outcome \"wrong\" above)\n", wrong);
    return 2;
  }
  return problems_without > 0 ? 1 : 0;
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
  CLI::App app{"tessera-profile: list, verify and time Tessera's GEMM configurations; emit the winners for gemm::Tuned"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tessera-profile ") + TESSERA_VERSION);

  ListOptions lo;
  CLI::App* list = app.add_subcommand("list", "the configurations this binary can run, with their resources (--all: the whole space; --invalid: why some were dropped); no GPU needed");
  list->add_option("operation", lo.operation, "gemm")->required()->check(kOperation);
  list->add_option("--arch", lo.arch, "only sm_<arch> configurations: 80 or 90")->check(CLI::IsMember({80, 90}));
  list->add_option("--dtype", lo.dtype, "only these element types: " + tp::dtype_choices())
      ->check(checked([](std::string const& t) { tp::ProblemTypes x; return tp::parse_dtype(t, x); }, "DTYPE"));
  list->add_option("--layout", lo.layout, "only this layout: tn, nt, nn, tt")
      ->check(checked([](std::string const& t) { tp::Layout x; return tp::parse_layout(t, x); }, "LAYOUT"));
  list->add_option("--kernels", lo.kernels, "only names matching these globs (comma-separated, * and ?)");
  CLI::Option* all = list->add_flag("--all", lo.all, "every configuration of the space (default: those built into this binary)");
  CLI::Option* invalid = list->add_flag("--invalid", lo.invalid_only, "only the dropped configurations of the space, with why");
  list->add_flag("--valid", lo.valid_only, "only the valid configurations of the space (built or not)")->excludes(all)->excludes(invalid);
  all->excludes(invalid);
  list->add_option("--json", lo.json, "also write the configurations shown (name, shared memory, threads, registers, status) as JSON to this file");

  ProfileOptions po;
  CLI::App* profile = app.add_subcommand("profile", "verify each configuration on the problem(s) against a device reference, then time it");
  profile->add_option("operation", po.operation, "gemm")->required()->check(kOperation);
  auto const ints = checked([](std::string const& t) { std::vector<int> v; return tp::parse_int_list(t, v); }, "LIST");
  CLI::Option* m_option =
      profile->add_option("--m", po.m, "M: a value, a list (16,128,4096) or a range start:end:step")->check(ints)->capture_default_str();
  CLI::Option* n_option = profile->add_option("--n", po.n, "N: as --m")->check(ints)->capture_default_str();
  CLI::Option* k_option = profile->add_option("--k", po.k, "K: as --m")->check(ints)->capture_default_str();
  profile->add_option("--problems", po.problems,
                      "explicit problems instead of every M x N x K of the lists: MxNxK,MxNxK,... or @file (one or more a line)")
      ->excludes(m_option)
      ->excludes(n_option)
      ->excludes(k_option);
  profile->add_option("--batch", po.batch, "batch count (1 to 65535)")->check(count("--batch", 1, 65535))->capture_default_str();
  profile->add_option("--dtype", po.dtype, "element types: " + tp::dtype_choices())
      ->check(checked([](std::string const& t) { tp::ProblemTypes x; return tp::parse_dtype(t, x); }, "DTYPE"))
      ->capture_default_str();
  profile->add_option("--layout", po.layout, "tn (row-major A, column-major B), nt, nn, tt")
      ->check(checked([](std::string const& t) { tp::Layout x; return tp::parse_layout(t, x); }, "LAYOUT"))
      ->capture_default_str();
  profile->add_option("--epilogue", po.epilogue, "fused stages joined by _ or +: " + tuning::epilogue_stage_list())
      ->check(checked([](std::string const& t) { tuning::EpilogueStages x; return tuning::parse_epilogue(t, x); }, "EPILOGUE"))
      ->capture_default_str();
  profile->add_option("--kernels", po.kernels, "only configurations whose names match these globs (comma-separated)");
  profile->add_option("--top-k", po.top_k, "time only the K best configurations by the static cost model (0: all)")->check(count("--top-k", 0));
  profile->add_option("--warmup", po.warmup, "untimed runs before timing")->check(count("--warmup", 0))->capture_default_str();
  profile->add_option("--iterations", po.iterations, "at most this many timed runs (at least 10; about 30 ms of them)")
      ->check(count("--iterations", 1))->capture_default_str();
  profile->add_option("--compare", po.compare,
                      "also run the problem through this library, verified and timed the same way, with a speed-ratio column: "
                      "cublas (cuBLASLt, with its fused bias / ReLU / GELU epilogues) or none")
      ->check(CLI::IsMember({"cublas", "none"}))
      ->capture_default_str();
  profile->add_flag("--no-flush", po.no_flush, "do not flush the L2 cache before each timed run");
  profile->add_flag("--quiet", po.quiet, "no table per problem (only the summary and the files)");
  profile->add_option("--csv", po.csv, "write every result as CSV to this file");
  profile->add_option("--json", po.json, "write every result as JSON to this file (what emit reads)");
  profile->add_option("--emit", po.emit, "write the winners as a gemm::Tuned header to this file");
  profile->add_option("--namespace", po.namespace_name, "the emitted header's namespace")->capture_default_str();

  std::vector<std::string> emit_inputs;
  std::string emit_output, emit_namespace = "tessera_tuned";
  CLI::App* emit = app.add_subcommand("emit", "write the winners of a profile (its --json or --csv file) as a header for gemm::Tuned");
  emit->add_option("results", emit_inputs, "results files of `profile --json` or `--csv` (merged)")->required();
  emit->add_option("-o,--output", emit_output, "the header to write (default: standard output)");
  emit->add_option("--namespace", emit_namespace, "the header's namespace")->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  if (list->parsed()) return run_list(lo);
  if (profile->parsed()) return run_profile(po);
  return run_emit(emit_inputs, emit_output, emit_namespace);
}
