#pragma once
// `mlacheck scenarios`: every row of the scenario table clean (must PASS) and with every fault,
// then the kill matrix. Exit status 1 when a clean run fails or a scenario's own fault survives;
// without a GPU the rows are SKIPPED with the reason and the status is 0. With a backend plugin
// only the clean rows run: the faults are switches inside mlacheck's own pipeline.
#include <CLI/CLI.hpp>

#include <string>

namespace mlacheck::cli {

struct ScenariosOptions {
  std::string file = "scenarios/upstream.csv";        // --file
  std::string known_bugs = "scenarios/known_bugs.csv";  // --known-bugs; "" for none
  int device = 0;                                     // --device
  bool verbose = false;                               // --verbose: every row, with its repro
  std::string backend = "hip";                        // --backend: "hip" or a backend plugin's path
};

void add_scenarios_command(CLI::App& app, ScenariosOptions& options);
int run_scenarios(const ScenariosOptions& options);

}  // namespace mlacheck::cli
