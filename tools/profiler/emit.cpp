#include "emit.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "tessera/tuning/gemm_space.hpp"

namespace tessera::profiler {

std::string table_name(Result const& r) {
  return r.dtype + "_" + r.layout + (r.epilogue == "none" ? "" : "_" + r.epilogue);
}

Status emit_header(Report const& report, EmitOptions const& options, std::string& header) {
  // table -> problem -> fastest passed result
  using Problem = std::tuple<int, int, int, int>;
  std::map<std::string, std::map<Problem, Result const*>> best;
  for (Result const& r : report.results) {
    if (r.outcome != Outcome::kPassed || r.kernel == kCublasName) continue;  // (a --compare row)
    Result const*& slot = best[table_name(r)][Problem{r.m, r.n, r.k, r.batch}];
    if (slot == nullptr || r.time_us < slot->time_us) slot = &r;
  }
  if (best.empty())
    return Status::invalid_argument("the results hold no passed configuration: profile first (tessera-profile profile gemm ... --json F)");

  std::string h = fmt::format(
      "// Written by tessera-profile emit: the fastest verified GEMM configuration per profiled problem,\n"
      "// measured on {} on {}. Dispatch with\n"
      "//   tessera::gemm::Tuned<{}::<table>, YourEpilogue>\n"
      "// which runs each problem with the entry nearest to it (log2 M, N, K). Regenerate rather than edit.\n"
      "#pragma once\n\n#include \"tessera/gemm/tuned.hpp\"\n\nnamespace {} {{\n",
      report.device.empty() ? "an unnamed device" : report.device, report.date.empty() ? "an unknown date" : report.date,
      options.namespace_name, options.namespace_name);
  for (auto const& [table, problems] : best) {
    Result const& first = *problems.begin()->second;
    h += fmt::format("\n// {} {}, profiled with epilogue {}: {} problem(s)\ninline constexpr tessera::gemm::TunedTable<{}> {}{{{{\n",
                     first.dtype, first.layout, first.epilogue, problems.size(), problems.size(), table);
    for (auto const& [problem, r] : problems) {
      std::string config = r->kernel;
      bool const swap = config.size() > 5 && config.compare(config.size() - 5, 5, "_swap") == 0;
      if (swap) config.resize(config.size() - 5);
      tuning::Candidate const* c = tuning::find_candidate(config);
      if (c == nullptr || !c->valid())
        return Status::invalid_argument("the results name configuration '" + config +
                                        "', which this version's configuration space does not have (results of another "
                                        "Tessera version?); profile again");
      if (std::get<3>(problem) != 1) h += fmt::format("    // batch {}\n", std::get<3>(problem));
      h += fmt::format("    // {}\n    {{{}, {}, {}, {}, {}, {:.2f}}},\n", r->kernel, r->m, r->n, r->k, tuning::cpp_initializer(c->spec),
                       swap ? "true" : "false", r->time_us);
    }
    h += "}};\n";
  }
  h += fmt::format("\n}}  // namespace {}\n", options.namespace_name);
  header = std::move(h);
  return Status::success();
}

}  // namespace tessera::profiler
