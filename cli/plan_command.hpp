#pragma once
// `mlacheck plan [--tier T | --plan FILE]`: the cases `mlacheck run` would run, one line each (id and repro string); with
// --coverage, every allowed combination of `--strength` production factors' values
// (plan/production_factors.csv) with the first case of the plan that holds it (the plan holds a
// strength-3 covering array, so strength 4 shows what it leaves out), then the
// combinations none holds and `uncovered: N`. Exit status 1 when a combination is uncovered.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "plan/run_plan.hpp"

namespace mlacheck::cli {

// Where a run's cases come from: a named tier (plan/tiers/NAME.plan), a plan file, or (neither)
// the default plan: self-checks, scenarios, curated sweeps, the covering array, a property sweep.
struct PlanSource {
  std::string tier;       // --tier
  std::string plan_file;  // --plan
  std::uint64_t seed = 1;
  int property_cases = 64;
  std::string scenarios_file;  // "" for the shipped table
  std::string factors_file;    // "" for the shipped table
};
// The plan options of the source; std::invalid_argument for --tier with --plan, a PlanFileError
// (file:line) for a malformed plan file.
RunPlanOptions plan_options_for(const PlanSource& source);
// Adds --tier and --plan to a command.
void add_plan_source_options(CLI::App* cmd, PlanSource& source);

struct PlanOptions {
  bool coverage = false;
  int strength = 3;
  PlanSource source;
};

void add_plan_command(CLI::App& app, PlanOptions& options);
int run_plan_command(const PlanOptions& options);

}  // namespace mlacheck::cli
