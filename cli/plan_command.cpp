#include "cli/plan_command.hpp"

#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cli/exit_status.hpp"
#include "core/mla_problem.hpp"
#include "harness/op_registry.hpp"
#include "plan/coverage_cases.hpp"
#include "plan/data_files.hpp"
#include "plan/plan_file.hpp"
#include "plan/run_plan.hpp"

namespace mlacheck::cli {

RunPlanOptions plan_options_for(const PlanSource& source) {
  if (!source.tier.empty() && !source.plan_file.empty()) {
    throw std::invalid_argument("--tier and --plan both name the cases: give one");
  }
  if (!source.tier.empty() || !source.plan_file.empty()) {
    RunPlanOptions o = read_plan_file(source.tier.empty() ? source.plan_file : tier_plan_path(source.tier));
    resolve_plan_tables(o);
    return o;
  }
  RunPlanOptions o;
  o.seed = source.seed;
  o.property_cases = source.property_cases;
  o.scenarios_file = scenario_table_path(source.scenarios_file);
  const FactorTableFiles files = production_factor_tables(source.factors_file);
  o.factors_file = files.factors;
  o.impossible_file = files.impossible;
  return o;
}

void add_plan_source_options(CLI::App* cmd, PlanSource& source) {
  cmd->add_option("--tier", source.tier, "Run a named tier's plan file: smoke, pre-merge or nightly (plan/tiers/)");
  cmd->add_option("--plan", source.plan_file, "Run the case sources of this plan file (plan/plan_file.hpp)");
}

void add_plan_command(CLI::App& app, PlanOptions& options) {
  CLI::App* cmd = app.add_subcommand("plan", "List the cases `mlacheck run` runs, or with --coverage the factor combinations they cover");
  cmd->add_flag("--coverage", options.coverage,
                "Print every combination of production factor values with the case covering it");
  cmd->add_option("--strength", options.strength, "Factors per combination asked about (the default plan holds a strength-3 covering array)")
      ->capture_default_str()
      ->check(CLI::Range(1, 11));
  cmd->add_option("--seed", options.source.seed, "Seed of the generated cases")->capture_default_str();
  cmd->add_option("--property-cases", options.source.property_cases, "Cases drawn from the property generators")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--scenarios", options.source.scenarios_file, "Scenario table (default: scenarios/upstream.csv)");
  cmd->add_option("--factors", options.source.factors_file,
                  "Production factor table (default: plan/production_factors.csv)");
  add_plan_source_options(cmd, options.source);
}

int run_plan_command(const PlanOptions& options) {
  const RunPlanOptions plan_options = plan_options_for(options.source);
  PlanNotes notes;
  const std::vector<RunCase> plan = build_run_plan(plan_options, &notes);
  if (!options.coverage) {
    double work = 0.0;
    for (const RunCase& c : plan) {
      std::printf("%s %s\n", c.id.c_str(), c.repro.c_str());
      work += case_work(parse_case(c.repro));
    }
    for (const std::string& e : notes.budget_excluded) std::printf("over the work budget, drawn again: %s\n", e.c_str());
    std::printf("cases: %zu; oracle work %.3g (case_work); %zu draws over the work budget\n", plan.size(), work,
                notes.budget_excluded.size());
    return kExitOk;
  }
  // The coverage question uses the shipped tables unless the plan names its own.
  const FactorTableFiles files = plan_options.factors_file.empty()
                                     ? production_factor_tables(options.source.factors_file)
                                     : FactorTableFiles{plan_options.factors_file, plan_options.impossible_file};
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
