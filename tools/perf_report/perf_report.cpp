// tessera-perf-report: turns Google Benchmark JSON output into the Markdown tables of
// docs/performance.md.
//
//   tessera-perf-report --commit <sha> --date <yyyy-mm-dd> bench_a.json bench_b.json > performance.md
//   tessera-perf-report --compare before1.json,before2.json after1.json,after2.json   (a change's effect)
//
// Benchmarks are named "<problem>/<implementation>"; within one problem the implementation named
// "tessera" is compared with every other one measured in the same binary (the vendor library, or a
// reference such as a copy), and the ratio is the other's median time over ours (> 1: we are faster).
// Only the median aggregate of each benchmark is read.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

struct Row {
  std::string impl;
  double median_us = 0;
  std::map<std::string, double> counters;  // e.g. GB/s, TFLOP/s
};

struct File {
  std::string path, device, date;
  std::map<std::string, std::vector<Row>> problems;  // in first-seen order of names below
  std::vector<std::string> order;
};

double to_us(double t, std::string const& unit) {
  if (unit == "ns") return t * 1e-3;
  if (unit == "ms") return t * 1e3;
  if (unit == "s") return t * 1e6;
  return t;
}

File read(std::string const& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  nlohmann::json j = nlohmann::json::parse(in);
  File f;
  f.path = path;
  f.device = j["context"].value("device", std::string("unknown device"));
  f.date = j["context"].value("date", std::string());
  // The medians in the benchmarks' registration order (family, then instance): the order they run
  // in without random interleaving, whatever order they ran in (the benches interleave them).
  std::vector<nlohmann::json> medians;
  for (auto const& b : j["benchmarks"])
    if (b.value("aggregate_name", std::string()) == "median") medians.push_back(b);
  std::stable_sort(medians.begin(), medians.end(), [](nlohmann::json const& x, nlohmann::json const& y) {
    auto key = [](nlohmann::json const& b) {
      return std::pair{b.value("family_index", 0), b.value("per_family_instance_index", 0)};
    };
    return key(x) < key(y);
  });
  for (auto const& b : medians) {
    std::string name = b.value("run_name", b.value("name", std::string()));
    // "<problem>/<implementation>[/arg:value...][/repeats:N][/manual_time]": the runner's suffixes
    // are dropped, the arguments stay with the problem.
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
      auto const cut = name.find('/', start);
      parts.push_back(name.substr(start, cut == std::string::npos ? std::string::npos : cut - start));
      if (cut == std::string::npos) break;
      start = cut + 1;
    }
    auto runner_suffix = [](std::string const& seg) {
      for (char const* p : {"repeats:", "min_time:", "iterations:", "threads:", "min_warmup_time:"})
        if (seg.rfind(p, 0) == 0) return true;
      return seg == "manual_time" || seg == "real_time" || seg == "process_time";
    };
    std::string problem = parts[0], impl = parts.size() > 1 ? parts[1] : "tessera", args;
    for (std::size_t i = 2; i < parts.size(); ++i)
      if (!runner_suffix(parts[i])) args += (args.empty() ? "" : " ") + parts[i];
    if (!args.empty()) problem += " " + args;
    Row r;
    r.impl = impl;
    r.median_us = to_us(b.value("real_time", 0.0), b.value("time_unit", std::string("ns")));
    for (auto const& [k, v] : b.items()) {
      if (v.is_number() && (k.find("/s") != std::string::npos || k.find("FLOP") != std::string::npos)) r.counters[k] = v.get<double>();
    }
    if (!f.problems.count(problem)) f.order.push_back(problem);
    f.problems[problem].push_back(r);
  }
  return f;
}

std::string format_counters(Row const& r) {
  std::string s;
  for (auto const& [k, v] : r.counters) {
    char buf[64];
    double shown = v;
    std::string unit = k;
    if (k == "GB/s") shown = v;  // already in GB per second (the bench scales bytes by 1e-9)
    std::snprintf(buf, sizeof buf, "%s%.1f %s", s.empty() ? "" : ", ", shown, unit.c_str());
    s += buf;
  }
  return s.empty() ? "-" : s;
}

// --compare: the same benchmarks from two builds (before and after a change), each run in rounds
// that alternate on one machine. Per benchmark of Tessera's: the median over the rounds of each
// build's medians, and after / before (above 1: the change made it slower).
int compare(std::string const& before_list, std::string const& after_list) {
  auto split = [](std::string const& list) {
    std::vector<std::string> out;
    for (std::size_t start = 0;;) {
      auto const cut = list.find(',', start);
      out.push_back(list.substr(start, cut == std::string::npos ? std::string::npos : cut - start));
      if (cut == std::string::npos) return out;
      start = cut + 1;
    }
  };
  // problem / implementation -> the median of each round
  auto collect = [](std::vector<std::string> const& paths, std::vector<std::string>& order) {
    std::map<std::string, std::vector<double>> times;
    for (auto const& path : paths) {
      File const f = read(path);
      for (auto const& problem : f.order)
        for (auto const& r : f.problems.at(problem)) {
          std::string const key = problem + " / " + r.impl;
          if (!times.count(key)) order.push_back(key);
          times[key].push_back(r.median_us);
        }
    }
    return times;
  };
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  std::vector<std::string> order, unused;
  auto const before = collect(split(before_list), order), after = collect(split(after_list), unused);
  std::cout << "| benchmark | rounds | before (us) | after (us) | after / before |\n|---|---:|---:|---:|---:|\n";
  for (auto const& key : order) {
    if (key.find("/ tessera") == std::string::npos || !after.count(key)) continue;
    double const b = median(before.at(key)), a = median(after.at(key));
    char line[512];
    std::snprintf(line, sizeof line, "| %s | %zu / %zu | %.2f | %.2f | %.4f |\n", key.c_str(), before.at(key).size(), after.at(key).size(), b,
                  a, b > 0 ? a / b : 0.0);
    std::cout << line;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--compare") {
    try {
      return compare(argv[2], argv[3]);
    } catch (std::exception const& e) {
      std::cerr << "tessera-perf-report --compare: " << e.what() << "\n";
      return 1;
    }
  }
  std::string commit = "unknown", date = "unknown";
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--commit" && i + 1 < argc) commit = argv[++i];
    else if (a == "--date" && i + 1 < argc) date = argv[++i];
    else if (a == "-h" || a == "--help") {
      std::cout << "usage: tessera-perf-report [--commit SHA] [--date DATE] bench.json...\n"
                   "       tessera-perf-report --compare before1.json,before2.json,... after1.json,after2.json,...\n";
      return 0;
    } else files.push_back(a);
  }
  if (files.empty()) {
    std::cerr << "tessera-perf-report: no benchmark JSON files given; pass the files written by "
                 "--benchmark_out=<file> --benchmark_out_format=json\n";
    return 2;
  }
  std::cout << "# Performance\n\n"
            << "Generated by `tessera-perf-report` from Google Benchmark output (`tools/gpu-check.sh`); do not edit by hand.\n"
            << "Median of the repetitions, each timed with CUDA events after an L2 flush. Ratio: the other\n"
            << "implementation's median time over Tessera's, measured in the same binary (> 1 means Tessera is faster).\n\n";
  for (auto const& path : files) {
    File f;
    try {
      f = read(path);
    } catch (std::exception const& e) {
      std::cerr << "tessera-perf-report: " << path << ": " << e.what() << "\n";
      return 1;
    }
    std::string base = path.substr(path.find_last_of('/') + 1);
    std::cout << "## " << base.substr(0, base.rfind('.')) << "\n\n"
              << "Device: " << f.device << ". Date: " << date << ". Commit: " << commit << ".\n\n"
              << "| problem | implementation | median (us) | rate | ratio vs tessera |\n"
              << "|---|---|---:|---|---:|\n";
    for (auto const& problem : f.order) {
      auto const& rows = f.problems[problem];
      double ours = 0;
      for (auto const& r : rows)
        if (r.impl == "tessera") ours = r.median_us;
      for (auto const& r : rows) {
        char ratio[32] = "-";
        if (ours > 0 && r.impl != "tessera") std::snprintf(ratio, sizeof ratio, "%.3f", r.median_us / ours);
        char t[32];
        std::snprintf(t, sizeof t, "%.1f", r.median_us);
        std::cout << "| " << problem << " | " << r.impl << " | " << t << " | " << format_counters(r) << " | " << ratio << " |\n";
      }
    }
    std::cout << "\n";
  }
  return 0;
}
