#pragma once
// `mlacheck bench`: times each decode path on the benchmark shapes (plan/bench_shapes.hpp)
// against the device's copy bandwidth measured in the same run, after checking every configuration
// once against the oracle; then the harness section: issue 29's targets
// (cli/bench_harness_section.hpp). The backend is the one --backend names (make_backend), checked
// and timed through the Backend interface (Backend::time_decode) by the harness's prefetching
// driver (cli/bench_timing_backend.hpp): the hip backend's decode alone and a device plugin's run()
// with device events on its stream, the L2 evicted before each run; a host plugin's run() with a
// steady clock (no GPU, no copy bandwidth).
#include <CLI/CLI.hpp>

#include <string>

#include "cli/bench_harness_section.hpp"

namespace mlacheck::cli {

struct BenchOptions {
  int device = 0;
  int runs = 25;      // timed runs per shape (the median is reported); at least 20
  int warmup = 5;
  bool quick = false;  // small shapes: a smoke test of the command, not figures to report
  std::string csv;     // --csv FILE: every row, for plotting
  std::string filter;  // --filter TEXT: only the shapes whose name contains it
  bool skip_throughput = false;
  std::string backend = "hip";  // --backend: "hip" or a backend plugin's path
  HarnessSectionOptions harness;  // the harness section (cli/bench_harness_section.hpp)
};

void add_bench_command(CLI::App& app, BenchOptions& options);
int run_bench(const BenchOptions& options);

}  // namespace mlacheck::cli
