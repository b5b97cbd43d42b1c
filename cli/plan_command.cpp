#include "cli/plan_command.hpp"

#include <cstdio>
#include <utility>
#include <vector>

#include "cli/exit_status.hpp"
#include "core/mla_problem.hpp"
#include "harness/op_registry.hpp"
#include "plan/coverage_cases.hpp"
#include "plan/data_files.hpp"
#include "plan/run_plan.hpp"

namespace mlacheck::cli {

void add_plan_command(CLI::App& app, PlanOptions& options) {
  CLI::App* cmd = app.add_subcommand("plan", "List the cases `mlacheck run` runs, or (--coverage) the factor combinations they cover");
  cmd->add_flag("--coverage", options.coverage,
                "Print every combination of production factor values with the case covering it");
  cmd->add_option("--strength", options.strength, "Factors per combination asked about (the default plan holds a strength-3 covering array)")
      ->capture_default_str()
      ->check(CLI::Range(1, 11));
  cmd->add_option("--seed", options.seed, "Seed of the generated cases")->capture_default_str();
  cmd->add_option("--property-cases", options.property_cases, "Cases drawn from the property generators")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--scenarios", options.scenarios_file, "Scenario table (default: scenarios/upstream.csv)");
  cmd->add_option("--factors", options.factors_file, "Production factor table (default: plan/production_factors.csv)");
}

int run_plan_command(const PlanOptions& options) {
  const FactorTableFiles files = production_factor_tables(options.factors_file);
  RunPlanOptions plan_options;
  plan_options.seed = options.seed;
  plan_options.property_cases = options.property_cases;
  plan_options.scenarios_file = scenario_table_path(options.scenarios_file);
  plan_options.factors_file = files.factors;
  plan_options.impossible_file = files.impossible;
  const std::vector<RunCase> plan = build_run_plan(plan_options);
  if (!options.coverage) {
    for (const RunCase& c : plan) std::printf("%s %s\n", c.id.c_str(), c.repro.c_str());
    std::printf("cases: %zu\n", plan.size());
    return kExitOk;
  }
  const FactorTable table = load_factor_table(files.factors, files.impossible);
  std::vector<std::pair<std::string, MlaDecodeProblem>> cases;
  for (const RunCase& c : plan) {
    if (c.kind != RunCase::Kind::device) continue;
    const CaseProblem problem = parse_case(c.repro);
    if (const auto* p = std::get_if<MlaDecodeProblem>(&problem)) cases.emplace_back(c.id, *p);
  }
  const CoverageReport report = measure_coverage(table, options.strength, cases);
  for (const CoverageReport::Covered& c : report.covered) {
    std::printf("%s  %s\n", describe(table, c.combination).c_str(), c.case_id.c_str());
  }
  for (const Combination& c : report.uncovered) std::printf("uncovered: %s\n", describe(table, c).c_str());
  std::printf("factors: %s (%zu impossible combinations); strength %d; %d mla_decode cases of %zu; combinations: %zu\n",
              files.factors.c_str(), table.impossible.size(), options.strength, report.cases, plan.size(),
              report.covered.size() + report.uncovered.size());
  std::printf("uncovered: %zu\n", report.uncovered.size());
  return report.uncovered.empty() ? kExitOk : kExitCaseFailed;
}

}  // namespace mlacheck::cli
