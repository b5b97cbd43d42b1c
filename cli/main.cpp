// mlacheck: verifies MLA decode backends against a CPU oracle. See README.md.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "cli/bench_command.hpp"
#include "cli/devices_command.hpp"
#include "cli/diff_command.hpp"
#include "cli/exit_status.hpp"
#include "cli/merge_command.hpp"
#include "cli/mutate_command.hpp"
#include "cli/plan_command.hpp"
#include "cli/run_command.hpp"
#include "cli/scenarios_command.hpp"
#include "cli/shrink_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"mlacheck: verifies MLA decode backends against a CPU oracle"};
  app.require_subcommand(1);
  // The project's version (CMakeLists.txt), the same as the Python package's mlacheck.__version__.
  app.set_version_flag("--version", "mlacheck " MLACHECK_VERSION);
  // Hidden: parse the command line, run nothing. The docs check (scripts/check-doc-commands.sh)
  // runs every command line of README.md and docs/ this way, so a renamed option fails CI.
  bool parse_only = false;
  app.add_flag("--parse-only", parse_only, "Parse the command line and exit")->group("");
  mlacheck::cli::RunOptions run_options;
  mlacheck::cli::add_run_command(app, run_options);
  mlacheck::cli::add_devices_command(app);
  mlacheck::cli::DiffOptions diff_options;
  mlacheck::cli::add_diff_command(app, diff_options);
  mlacheck::cli::MergeOptions merge_options;
  mlacheck::cli::add_merge_command(app, merge_options);
  mlacheck::cli::PlanOptions plan_options;
  mlacheck::cli::add_plan_command(app, plan_options);
  mlacheck::cli::ScenariosOptions scenarios_options;
  mlacheck::cli::add_scenarios_command(app, scenarios_options);
  mlacheck::cli::MutateOptions mutate_options;
  mlacheck::cli::add_mutate_command(app, mutate_options);
  mlacheck::cli::BenchOptions bench_options;
  mlacheck::cli::add_bench_command(app, bench_options);
  mlacheck::cli::ShrinkCommandOptions shrink_options;
  mlacheck::cli::add_shrink_command(app, shrink_options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return mlacheck::cli::parse_error_status(app, e);
  }
  if (parse_only) return mlacheck::cli::kExitOk;
  try {
    if (app.got_subcommand("run")) return mlacheck::cli::run(run_options);
    if (app.got_subcommand("devices")) return mlacheck::cli::list_devices();
    if (app.got_subcommand("diff")) return mlacheck::cli::run_diff(diff_options);
    if (app.got_subcommand("merge")) return mlacheck::cli::run_merge(merge_options);
    if (app.got_subcommand("plan")) return mlacheck::cli::run_plan_command(plan_options);
    if (app.got_subcommand("scenarios")) return mlacheck::cli::run_scenarios(scenarios_options);
    if (app.got_subcommand("mutate")) return mlacheck::cli::run_mutate(mutate_options);
    if (app.got_subcommand("bench")) return mlacheck::cli::run_bench(bench_options);
    if (app.got_subcommand("shrink")) return mlacheck::cli::run_shrink(shrink_options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlacheck: error: %s\n", e.what());
    return mlacheck::cli::kExitUsage;
  }
  return mlacheck::cli::kExitUsage;
}
