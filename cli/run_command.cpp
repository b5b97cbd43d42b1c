#include "cli/run_command.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "cli/backend_description.hpp"
#include "cli/progress.hpp"
#include "cli/result_table.hpp"
#include "plan/data_files.hpp"
#include "plan/run_plan.hpp"
#include "cli/shard.hpp"
#include "cli/supervisor.hpp"
#include "device/platform/device_info.hpp"
#include "reports/report_folder.hpp"

namespace mlacheck::cli {

namespace {

std::vector<int> devices_to_use(const std::optional<int>& option) {
  if (option) return {*option};
  std::vector<int> all;
  for (int i = 0; i < probe_devices().count; ++i) all.push_back(i);
  if (all.empty()) all.push_back(0);  // the worker reports every device case SKIPPED with the reason
  return all;
}

}  // namespace

void add_run_command(CLI::App& app, RunOptions& options) {
  CLI::App* cmd = app.add_subcommand("run", "Run the oracle self-checks, the scenarios and the sweeps (the main job)");
  cmd->add_option("--case", options.case_repro, "Run one case given by its repro string (mla_decode:... or kv_gather:...)");
  cmd->add_option("--seed", options.seed, "Seed of the generated cases")->capture_default_str();
  cmd->add_option("--property-cases", options.property_cases, "Cases drawn from the property generators")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--device", options.device, "Run on this GPU only (default: every visible GPU)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--verbose,-v", options.verbose, "Print the repro string and tolerance rule of every row");
  cmd->add_option("--out", options.out_dir, "Existing folder for report.csv, junit.xml and report.html");
  cmd->add_flag("--resume", options.resume, "Keep the rows in --out's report.csv and run only the missing cases");
  cmd->add_option("--shard", options.shard, "Run shard i of n (i/n), as GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS do");
  cmd->add_option("--scenarios", options.scenarios_file, "Scenario table (default: scenarios/upstream.csv)");
  cmd->add_option("--timeout", options.timeout_base_s, "Watchdog base limit per case in seconds (grows with size)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--lookahead", options.lookahead, "Cases whose oracle runs on CPU threads ahead of the GPU")
      ->capture_default_str();
  cmd->add_option("--backend", options.backend, "\"hip\" or the path of a backend plugin .so (docs/backends.md)")
      ->capture_default_str();
}

int run(const RunOptions& options) {
  if (options.resume && options.out_dir.empty()) throw std::invalid_argument("--resume needs --out");
  // A file that is no usable plugin stops the run here (PluginError, exit 2), not in every worker.
  const std::string backend = describe_backend(options.backend);
  RunPlanOptions plan_options;
  plan_options.case_repro = options.case_repro;
  plan_options.seed = options.seed;
  plan_options.property_cases = options.property_cases;
  plan_options.scenarios_file = options.case_repro.empty() ? scenario_table_path(options.scenarios_file) : "";
  plan_options.timeout_base_s = options.timeout_base_s;
  const std::vector<RunCase> plan = build_run_plan(plan_options);
  const Shard shard = resolve_shard(options.shard);

  // Opened before any case runs, so a bad folder fails at once rather than after a long run.
  std::optional<ReportFolder> reports;
  if (!options.out_dir.empty()) reports.emplace(options.out_dir, options.resume);
  std::vector<CaseResult> rows;
  std::set<std::string> done;
  if (reports) {
    for (const CaseResult& r : reports->resume_rows()) {
      done.insert(r.id);
      rows.push_back(r);
    }
  }
  std::vector<RunCase> todo;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (shard.contains(i) && !done.contains(plan[i].id)) todo.push_back(plan[i]);
  }

  const std::vector<int> devices = devices_to_use(options.device);
  const DeviceAvailability avail = probe_devices();
  std::fprintf(stdout, "backend: %s\n", backend.c_str());
  std::fprintf(stdout, "devices: %s; %zu cases to run", avail.count > 0 ? std::to_string(devices.size()).c_str() : ("none (" + avail.reason + ")").c_str(), todo.size());
  if (!done.empty()) std::fprintf(stdout, ", %zu kept from the report being resumed", done.size());
  std::fprintf(stdout, "\n");
  std::fflush(stdout);

  Progress progress(todo.size(), stderr, stderr_is_terminal());
  const auto start = std::chrono::steady_clock::now();
  SupervisorOptions sup;
  sup.executable = std::filesystem::read_symlink("/proc/self/exe").string();
  sup.devices = devices;
  sup.lookahead = options.lookahead;
  sup.backend = options.backend;
  supervise(todo, sup, [&](std::size_t, CaseResult row) {
    print_row(stdout, row, options.verbose);
    std::fflush(stdout);
    if (reports) reports->append(row);
    progress.case_done(is_failure(row.state));
    rows.push_back(std::move(row));
  });
  progress.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stdout, "%zu cases in %.1f s: %.2f cases/s\n", todo.size(), seconds,
               seconds > 0.0 ? static_cast<double>(todo.size()) / seconds : 0.0);
  if (reports) reports->finish();
  return print_summary(stdout, rows);
}

}  // namespace mlacheck::cli
