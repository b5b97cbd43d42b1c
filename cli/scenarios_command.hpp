#pragma once
// `mlacheck scenarios`: every row of the scenario table clean (must PASS) and with every fault,
// each case in a process of its own under a watchdog, then the kill matrix with how each fault was
// caught. Exit status 1 when a clean run does not pass (SKIPPED included) or a scenario's own fault
// survives or is caught other than as its table row says; 2 for a setup that cannot run (a table
// that does not load, --device of a GPU that does not exist or cannot be used); without any GPU
// the rows are SKIPPED, the output says that nothing was checked, and the status is 0. With a
// backend plugin only the clean rows run: the faults are switches inside
// mlacheck's own pipeline.
//
// --sensitivity runs the sensitivity matrix instead of the kill matrix (cli/sensitivity_section.hpp):
// the default main job's mla_decode cases clean and with every precision fault, on --seeds seeds.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlacheck::cli {

struct ScenariosOptions {
  std::string file;                        // --file; "" finds scenarios/upstream.csv (plan/data_files.hpp)
  std::optional<std::string> known_bugs;   // --known-bugs; unset finds the shipped list, "" for none
  std::optional<int> device;               // --device; default GPU 0
  bool verbose = false;                    // --verbose: every row, with its repro
  bool list = false;                       // --list: print the table's scenarios and run nothing
  double timeout_base_s = 120.0;           // --timeout: the watchdog's base limit per case
  std::string backend = "hip";             // --backend: "hip" or a backend plugin's path
  // The sensitivity matrix (--sensitivity), not run by default: it costs (1 + precision faults) x
  // seeds passes over the default main job's cases.
  bool sensitivity = false;
  int seeds = 20;                   // --seeds: seeds 1 .. --seeds of the main job's plan
  std::vector<std::string> faults;  // --fault: only these precision faults (repeatable)
  std::optional<int> jobs;          // --jobs: seeds run at once; default half the cores
  std::string out_dir;              // --out: where sensitivity.csv goes ("" for mlacheck-report)
};

void add_scenarios_command(CLI::App& app, ScenariosOptions& options);
int run_scenarios(const ScenariosOptions& options);

}  // namespace mlacheck::cli
