#include "emit.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>
#include <vector>

#include "options.hpp"
#include "tessera/tuning/attention_space.hpp"
#include "tessera/tuning/conv_space.hpp"
#include "tessera/tuning/gemm_space.hpp"

namespace tessera::profiler {

std::string table_name(Result const& r) {
  if (r.conv()) return r.dtype + "_" + r.direction;
  if (r.attention()) {
    AttentionShape a;
    if (!parse_attention_problem(r.problem, a)) return r.dtype + "_attention";  // (emit_header refuses such a row)
    return r.dtype + "_hd" + std::to_string(a.head_dim) + (a.head_dim_v != a.head_dim ? "x" + std::to_string(a.head_dim_v) : "") + "_" +
           tuning::attention_mask_name(a.mask.kind);
  }
  return r.dtype + "_" + r.layout + (r.epilogue == "none" ? "" : "_" + r.epilogue);
}

std::string cpp_initializer(conv::Problem const& p) {
  auto const a = [](Array<int, 3> const& v) { return fmt::format("{{{}, {}, {}}}", v[0], v[1], v[2]); };
  return fmt::format("{{.n = {}, .d = {}, .h = {}, .w = {}, .c = {}, .k = {}, .t = {}, .r = {}, .s = {}, .pad_before = {}, "
                     ".pad_after = {}, .stride = {}, .dilation = {}, .groups = {}}}",
                     p.n, p.d, p.h, p.w, p.c, p.k, p.t, p.r, p.s, a(p.pad_before), a(p.pad_after), a(p.stride), a(p.dilation), p.groups);
}

namespace {
Status unknown_configuration(std::string const& config) {
  return Status::invalid_argument("the results name configuration '" + config +
                                  "', which this version's configuration space does not have (results of another Tessera "
                                  "version?); profile again");
}

// The GEMM tables: per problem (M, N, K, batch) the winner's spec and whether it ran swapped.
Status gemm_table(std::string const& table, std::map<std::string, Result const*> const& problems, std::string& h) {
  Result const& first = *problems.begin()->second;
  h += fmt::format("\n// {} {}, profiled with epilogue {}: {} problem(s)\ninline constexpr tessera::gemm::TunedTable<{}> {}{{{{\n",
                   first.dtype, first.layout, first.epilogue, problems.size(), problems.size(), table);
  for (auto const& [key, r] : problems) {
    std::string config = r->kernel;
    bool const swap = config.size() > 5 && config.compare(config.size() - 5, 5, "_swap") == 0;
    if (swap) config.resize(config.size() - 5);
    tuning::Candidate const* c = tuning::find_candidate(config);
    if (c == nullptr || !c->valid()) return unknown_configuration(config);
    if (r->batch != 1) h += fmt::format("    // batch {}\n", r->batch);
    h += fmt::format("    // {}\n    {{{}, {}, {}, {}, {}, {:.2f}}},\n", r->kernel, r->m, r->n, r->k, tuning::cpp_initializer(c->spec),
                     swap ? "true" : "false", r->time_us);
  }
  h += "}};\n";
  return Status::success();
}

// The convolution tables: per problem the winner's spec.
Status conv_table(std::string const& table, std::map<std::string, Result const*> const& problems, std::string& h) {
  Result const& first = *problems.begin()->second;
  h += fmt::format("\n// {} {}: {} problem(s)\ninline constexpr tessera::conv::TunedTable<{}> {}{{{{\n", first.dtype, first.direction,
                   problems.size(), problems.size(), table);
  for (auto const& [key, r] : problems) {
    tuning::ConvCandidate const* c = tuning::find_conv_candidate(r->kernel);
    if (c == nullptr || !c->valid()) return unknown_configuration(r->kernel);
    conv::Problem p;
    if (Status const s = parse_conv_problem(r->problem, p); !s) return Status::invalid_argument("a result's problem: " + s.detail());
    h += fmt::format("    // {}: {}\n    {{{},\n     {},\n     {:.2f}}},\n", r->kernel, r->problem, cpp_initializer(p),
                     tuning::cpp_initializer(c->spec), r->time_us);
  }
  h += "}};\n";
  return Status::success();
}
// The attention tables: per problem the winner's spec (its mask dropped: Tuned takes the
// application's chain) and its shape (a packed batch's: its batch, its longest sequences, and
// `true`: its lengths vary).
Status attention_table(std::string const& table, std::map<std::string, Result const*> const& problems, std::string& h) {
  Result const& first = *problems.begin()->second;
  AttentionShape a0;
  TESSERA_RETURN_IF_ERROR(parse_attention_problem(first.problem, a0));
  bool const sm80 = table.size() > 5 && table.compare(table.size() - 5, 5, "_sm80") == 0;
  h += fmt::format("\n// {} head dims {} / {}{}, profiled with mask {}{}: {} problem(s)\ninline constexpr tessera::attention::TunedTable<{}> {}{{{{\n",
                   first.dtype, a0.head_dim, a0.head_dim_v, first.dtype == "e4m3" ? " (O in bf16; pass the per-tensor scales)" : "",
                   attention_mask_text(a0.mask), sm80 ? ", the sm80 kernel's winners (any GPU from sm_80: builds without sm_90a)" : "",
                   problems.size(), problems.size(), table);
  for (auto const& [key, r] : problems) {
    tuning::AttentionCandidate const* c = tuning::find_attention_candidate(r->kernel);
    if (c == nullptr || !c->valid()) return unknown_configuration(r->kernel);
    AttentionShape a;
    if (Status const s = parse_attention_problem(r->problem, a); !s) return Status::invalid_argument("a result's problem: " + s.detail());
    h += fmt::format("    // {}: {}\n    {{{{{}, {}, {}, {}, {}{}}}, {}, {:.2f}}},\n", r->kernel, r->problem, a.batch, a.heads, a.heads_kv,
                     a.seqlen_q, a.seqlen_k, a.variable() ? ", true" : "", tuning::cpp_initializer(c->spec.config), r->time_us);
  }
  h += "}};\n";
  return Status::success();
}
}  // namespace

Status emit_header(Report const& report, EmitOptions const& options, std::string& header) {
  // table -> problem -> fastest passed result (ordered: GEMM problems by M, N, K, batch)
  std::map<std::string, std::map<std::string, Result const*>> gemm_best, conv_best, attention_best;
  for (Result const& r : report.results) {
    if (r.outcome != Outcome::kPassed || r.kernel == kCublasName) continue;  // (a --compare row)
    std::string const problem = r.conv() || r.attention() ? r.problem : fmt::format("{:010}x{:010}x{:010}x{:05}", r.m, r.n, r.k, r.batch);
    Result const*& slot = (r.conv() ? conv_best : r.attention() ? attention_best : gemm_best)[table_name(r)][problem];
    if (slot == nullptr || r.time_us < slot->time_us) slot = &r;
    // The sm80 kernel's winners also get a table of their own: on Hopper the Hopper kernel wins,
    // and a build for sm_80 (an A100) needs the best of the kernel it can run.
    if (r.attention() && r.kernel.rfind("sm80_", 0) == 0) {
      Result const*& sm80 = attention_best[table_name(r) + "_sm80"][problem];
      if (sm80 == nullptr || r.time_us < sm80->time_us) sm80 = &r;
    }
  }
  if (gemm_best.empty() && conv_best.empty() && attention_best.empty())
    return Status::invalid_argument(
        "the results hold no passed configuration: profile first (tessera-profile profile gemm|conv|attention ... --json F)");

  std::vector<std::string> kinds;
  if (!gemm_best.empty()) kinds.push_back("GEMM");
  if (!conv_best.empty()) kinds.push_back("convolution");
  if (!attention_best.empty()) kinds.push_back("attention");
  std::string kind = kinds[0];
  for (std::size_t i = 1; i < kinds.size(); ++i) kind += (i + 1 == kinds.size() ? " and " : ", ") + kinds[i];
  std::string h = fmt::format(
      "// Written by tessera-profile emit: the fastest verified {} configuration per profiled problem,\n"
      "// measured on {} on {}. Dispatch with\n",
      kind, report.device.empty() ? "an unnamed device" : report.device, report.date.empty() ? "an unknown date" : report.date);
  if (!gemm_best.empty())
    h += fmt::format("//   tessera::gemm::Tuned<{}::<table>, YourEpilogue>\n"
                     "// which runs each problem with the entry nearest to it (log2 M, N, K)",
                     options.namespace_name);
  if (!conv_best.empty())
    h += fmt::format("{}//   tessera::conv::Tuned<{}::<table>, YourEpilogue>\n"
                     "// which runs each problem with its own entry, else the nearest (log2 of the implicit GEMM's M, N, K\n"
                     "// and the groups), else its fallback Config",
                     gemm_best.empty() ? "" : ",\n", options.namespace_name);
  if (!attention_best.empty())
    h += fmt::format("{}//   tessera::attention::Tuned<{}::<table>, YourChain>\n"
                     "// which runs each problem with the entry of its shape, else the nearest (log2 of batch x heads,\n"
                     "// seqlen_q and seqlen_k; a packed batch of variable lengths by its longest sequences, the entries\n"
                     "// profiled with variable lengths first); YourChain: the masks and score stages you run (a table says\n"
                     "// which mask it was profiled with); a table ending in _sm80 holds the sm80 kernel's winners, for builds\n"
                     "// without sm_90a",
                     gemm_best.empty() && conv_best.empty() ? "" : ",\n", options.namespace_name);
  h += ". Regenerate rather than edit.\n#pragma once\n\n";
  if (!gemm_best.empty()) h += "#include \"tessera/gemm/tuned.hpp\"\n";
  if (!conv_best.empty()) h += "#include \"tessera/conv/tuned.hpp\"\n";
  if (!attention_best.empty()) h += "#include \"tessera/attention/tuned.hpp\"\n";
  h += fmt::format("\nnamespace {} {{\n", options.namespace_name);
  for (auto const& [table, problems] : gemm_best) TESSERA_RETURN_IF_ERROR(gemm_table(table, problems, h));
  for (auto const& [table, problems] : conv_best) TESSERA_RETURN_IF_ERROR(conv_table(table, problems, h));
  for (auto const& [table, problems] : attention_best) TESSERA_RETURN_IF_ERROR(attention_table(table, problems, h));
  h += fmt::format("\n}}  // namespace {}\n", options.namespace_name);
  header = std::move(h);
  return Status::success();
}

}  // namespace tessera::profiler
