#include "cli/run_command.hpp"

#include <cstdio>
#include <optional>
#include <vector>

#include "cli/result_table.hpp"
#include "core/error.hpp"
#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "harness/default_sweep.hpp"
#include "harness/gather_case.hpp"
#include "harness/mla_case.hpp"
#include "harness/oracle_self_check.hpp"
#include "reports/report_folder.hpp"

namespace mlacheck::cli {

namespace {

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

void add_run_command(CLI::App& app, RunOptions& options) {
  CLI::App* cmd = app.add_subcommand("run", "Run the oracle self-checks and every device case (the main job)");
  cmd->add_option("--case", options.case_repro, "Run one case given by its repro string (mla_decode:... or kv_gather:...)");
  cmd->add_option("--seed", options.seed, "Seed of the generated cases")->capture_default_str();
  cmd->add_option("--device", options.device, "GPU index")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_flag("--verbose,-v", options.verbose, "Print the repro string and tolerance rule of every row");
  cmd->add_option("--out", options.out_dir, "Existing folder for report.csv, junit.xml and report.html");
}

int run(const RunOptions& options) {
  BackendOrReason hip = make_hip_backend(options.device);
  Backend* backend = hip.backend.get();
  // Opened before any case runs, so a bad folder fails at once rather than after a long run.
  std::optional<ReportFolder> reports;
  if (!options.out_dir.empty()) reports.emplace(options.out_dir);
  std::vector<CaseResult> rows;
  const auto record = [&](CaseResult row) {
    print_row(stdout, row, options.verbose);
    std::fflush(stdout);
    if (reports) reports->append(row);
    rows.push_back(std::move(row));
  };
  const auto finish = [&] {
    if (reports) reports->finish();
    return print_summary(stdout, rows);
  };

  if (!options.case_repro.empty()) {
    // A malformed repro string is the user's input error: it propagates to main (exit 2).
    if (starts_with(options.case_repro, "kv_gather:")) {
      record(run_gather_case(parse_kv_gather(options.case_repro), backend, hip.reason));
    } else {
      record(run_mla_case(parse_mla_decode(options.case_repro), backend, hip.reason));
    }
    return finish();
  }

  std::fprintf(stdout, "device: %s\n", backend ? backend->device_name().c_str() : ("none: " + hip.reason).c_str());
  for (const MlaDecodeProblem& p : oracle_self_check_problems(options.seed)) record(run_oracle_self_check(p));
  for (const MlaDecodeProblem& p : default_mla_sweep(options.seed)) record(run_mla_case(p, backend, hip.reason));
  for (const KvGatherProblem& p : default_gather_sweep(options.seed)) record(run_gather_case(p, backend, hip.reason));
  return finish();
}

}  // namespace mlacheck::cli
