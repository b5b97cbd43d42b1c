#pragma once
// `mlacheck run`: the main job. The oracle self-checks, every scenario, the default sweep and a
// property sweep (or the one case of --case), run isolated in one worker process per visible GPU
// (run/isolated_cases.hpp, run/run_worker.hpp), one row each, written to a report folder (mlacheck-report/ by default) as each
// case ends; exit status 1 when any case FAILED or ERRORED, 2 for a setup that cannot run
// (cli/exit_status.hpp).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "harness/oracle_share.hpp"

namespace mlacheck::cli {

struct RunOptions {
  std::string case_repro;     // --case: run this one case alone
  std::uint64_t seed = 1;     // --seed: seeds every generated case
  int property_cases = 64;    // --property-cases: size of the property sweep
  std::optional<int> device;  // --device: one GPU index; default every visible GPU
  bool verbose = false;       // --verbose: print the repro and tolerance rule of every row
  // --out: the folder for report.csv (a row as each case ends), junit.xml and report.html; created
  // when missing. Empty: kDefaultReportDir, or no reports for a --case replay.
  std::string out_dir;
  bool resume = false;        // --resume: keep the rows of the folder's report.csv and run the rest
  bool force = false;         // --force: replace a report the folder already holds
  std::optional<std::string> shard;  // --shard i/n
  std::string scenarios_file;        // --scenarios: the scenario table ("" for the default)
  std::string factors_file;          // --factors: the production factor table ("" for the default)
  std::string tier;                  // --tier: a named tier's plan file (plan/tiers/)
  std::string plan_file;             // --plan: a plan file
  std::optional<std::string> known_bugs;  // --known-bugs; unset finds the shipped list, "" for none
  double timeout_base_s = 120.0;     // --timeout: the watchdog's base limit per case
  std::size_t lookahead = default_lookahead();  // --lookahead: cases whose oracle runs ahead of the GPU
  std::string backend = "hip";       // --backend: "hip" or the path of a backend plugin (docs/backends.md)
  // --require-device: a run that finds no device to run the backend on is a setup error (exit 2),
  // not a green run of SKIPPED rows: for CI jobs whose container may not see the GPU.
  bool require_device = false;
};

inline constexpr const char* kDefaultReportDir = "mlacheck-report";

void add_run_command(CLI::App& app, RunOptions& options);
int run(const RunOptions& options);

}  // namespace mlacheck::cli
