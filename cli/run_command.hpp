#pragma once
// `mlacheck run`: the main job. The oracle self-checks, then every device case of the sweep (or
// one case given as a repro string), one row each, optionally written to a report folder; exit
// status 1 when any case FAILED or ERRORED.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace mlacheck::cli {

struct RunOptions {
  std::string case_repro;  // --case: run this one case alone
  std::uint64_t seed = 1;  // --seed: seeds every generated case
  int device = 0;          // --device: GPU index
  bool verbose = false;    // --verbose: print the repro and tolerance rule of every row
  std::string out_dir;     // --out: write report.csv (a row as each case ends), junit.xml, report.html
};

void add_run_command(CLI::App& app, RunOptions& options);
int run(const RunOptions& options);

}  // namespace mlacheck::cli
