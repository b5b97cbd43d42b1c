#pragma once
// `mlacheck plan`: the cases `mlacheck run` would run, one line each (id and repro string); with
// --coverage, every allowed combination of `--strength` production factors' values
// (plan/production_factors.csv) with the first case of the plan that holds it (the plan holds a
// strength-3 covering array, so strength 4 shows what it leaves out), then the
// combinations none holds and `uncovered: N`. Exit status 1 when a combination is uncovered.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace mlacheck::cli {

struct PlanOptions {
  bool coverage = false;
  int strength = 3;
  std::uint64_t seed = 1;
  int property_cases = 64;
  std::string scenarios_file;
  std::string factors_file;
};

void add_plan_command(CLI::App& app, PlanOptions& options);
int run_plan_command(const PlanOptions& options);

}  // namespace mlacheck::cli
