#include "cli/run_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "cli/backend_description.hpp"
#include "cli/device_preflight.hpp"
#include "cli/option_checks.hpp"
#include "run/isolated_cases.hpp"
#include "cli/factor_coverage.hpp"
#include "cli/plan_command.hpp"
#include "cli/progress.hpp"
#include "cli/result_table.hpp"
#include "run/run_worker.hpp"
#include "cli/shard.hpp"
#include "plan/case_settle.hpp"
#include "plan/coverage_cases.hpp"
#include "plan/data_files.hpp"
#include "plan/plan_fingerprint.hpp"
#include "plan/run_plan.hpp"
#include "reports/case_facets.hpp"
#include "reports/report_folder.hpp"

namespace mlacheck::cli {

namespace {

// A --case replay writes no reports unless asked: it must not collide with the main run's folder.
std::string report_dir(const RunOptions& options) {
  if (!options.out_dir.empty()) return options.out_dir;
  return options.case_repro.empty() ? kDefaultReportDir : "";
}

ReportFolder::Mode folder_mode(const RunOptions& options) {
  if (options.resume) return ReportFolder::Mode::resume;
  return options.force ? ReportFolder::Mode::replace : ReportFolder::Mode::fresh;
}

std::string describe_devices(const DevicePlan& devices) {
  if (devices.devices.empty()) return "none (" + devices.no_gpu_reason + ")";
  std::string out;
  for (std::size_t k = 0; k < devices.devices.size(); ++k) {
    out += (k == 0 ? "" : "; ") + ("GPU " + std::to_string(devices.devices[k]) + " " + devices.names[k]);
  }
  return out;
}

}  // namespace

void add_run_command(CLI::App& app, RunOptions& options) {
  CLI::App* cmd = app.add_subcommand("run", "Run the oracle self-checks, the scenarios and the sweeps (the main job)");
  cmd->add_option("--case", options.case_repro, "Run one case given by its repro string (mla_decode:... or kv_gather:...)");
  cmd->add_option("--seed", options.seed, "Seed of the generated cases")->capture_default_str()->check(unsigned_64());
  cmd->add_option("--property-cases", options.property_cases, "Cases drawn from the property generators")
      ->capture_default_str()
      ->check(whole_number(0, kMaxPropertyCases));
  cmd->add_option("--device", options.device, "Run on this GPU only (default: every visible GPU)")
      ->check(whole_number(0, 1023));
  cmd->add_flag("--verbose,-v", options.verbose, "Print the repro string and tolerance rule of every row");
  cmd->add_option("--out", options.out_dir,
                  std::string("Folder for report.csv, junit.xml and report.html, created if missing (default: ") +
                      kDefaultReportDir + "; a --case replay writes none unless given)");
  cmd->add_flag("--resume", options.resume, "Keep the rows of the folder's report.csv and run only the missing cases");
  cmd->add_flag("--force", options.force, "Replace a report the folder already holds");
  cmd->add_option("--shard", options.shard,
                  "Run shard i of n (i/n), or 'auto' to read it from Slurm or Kubernetes (docs/ci.md)");
  cmd->add_option("--scenarios", options.scenarios_file, "Scenario table (default: scenarios/upstream.csv)");
  cmd->add_option("--factors", options.factors_file,
                  "Production factor table whose covering array the plan holds (default: plan/production_factors.csv)");
  cmd->add_option("--tier", options.tier, "Run a named tier's plan file: smoke, pre-merge or nightly (plan/tiers/)");
  cmd->add_option("--plan", options.plan_file, "Run the case sources of this plan file (plan/plan_file.hpp)");
  cmd->add_option("--known-bugs", options.known_bugs,
                  "Known-bug table (default: scenarios/known_bugs.csv); empty for none");
  cmd->add_option("--timeout", options.timeout_base_s, "Watchdog base limit per case in seconds (grows with size)")
      ->capture_default_str()
      ->check(finite_number(0.0, kMaxTimeoutSeconds, true));
  cmd->add_option("--lookahead", options.lookahead, "Cases whose oracle runs on CPU threads ahead of the GPU")
      ->capture_default_str()
      ->check(whole_number(0, kMaxLookahead));
  cmd->add_option("--backend", options.backend, "\"hip\" or the path of a backend plugin .so (docs/backends.md)")
      ->capture_default_str();
  cmd->add_flag("--require-device", options.require_device,
                "Exit with status 2 when no device to run the backend on is visible, instead of SKIPPED rows");
}

int run(const RunOptions& options) {
  if (options.resume && options.force) throw std::invalid_argument("--resume and --force contradict each other");
  const std::string out_dir = report_dir(options);
  // A file that is no usable plugin stops the run here (PluginError, exit 2), not in every worker.
  const std::string backend = describe_backend(options.backend);
  if (options.resume && out_dir.empty()) throw std::invalid_argument("--resume of a --case replay needs --out");
  RunPlanOptions plan_options;
  if (options.case_repro.empty()) {
    plan_options = plan_options_for({options.tier, options.plan_file, options.seed, options.property_cases,
                                     options.scenarios_file, options.factors_file});
  } else {
    plan_options.case_repro = options.case_repro;
  }
  plan_options.timeout_base_s = options.timeout_base_s;
  // A plugin's declared space draws the property sweep within it (a --case replay has no sweep).
  if (options.case_repro.empty()) plan_options.space = backend_space(options.backend);
  PlanNotes notes;
  const std::vector<RunCase> plan = build_run_plan(plan_options, &notes);
  // The plan's production factors: its covering array's, measured in the report.
  std::optional<FactorTableFiles> factors;
  if (!plan_options.factors_file.empty()) factors = FactorTableFiles{plan_options.factors_file, plan_options.impossible_file};
  const std::vector<scenarios::KnownBug> known_bugs = load_known_bug_table(options.known_bugs);
  const Shard shard = resolve_shard(options.shard);

  // Before the report folder: a setup that cannot run must not leave a report behind it.
  const DevicePlan devices = preflight_devices(options.device, options.backend);
  if (options.require_device && devices.devices.empty()) {
    throw PreflightError("--require-device: no device to run the backend on: " + devices.no_gpu_reason +
                         " (nothing was run; is the GPU visible to this container or job?)");
  }
  // Opened before any case runs, so a bad folder fails at once rather than after a long run.
  // With --resume the folder's plan fingerprint must be this plan's, so every kept row is this
  // plan's case of its id (another --seed, table or --case is refused there).
  std::optional<ReportFolder> reports;
  if (!out_dir.empty()) reports.emplace(out_dir, folder_mode(options), plan_fingerprint(plan));
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

  // The long cases start early, so the sitting's tail is short cases overlapping each other.
  order_costliest_first(todo);

  std::fprintf(stdout, "backend: %s\n", backend.c_str());
  if (!notes.budget_excluded.empty()) {
    std::fprintf(stdout, "work budget: %zu property draws over it were drawn again (`mlacheck plan` lists them)\n",
                 notes.budget_excluded.size());
  }
  std::fprintf(stdout, "devices: %s; %zu cases to run", describe_devices(devices).c_str(), todo.size());
  if (!done.empty()) std::fprintf(stdout, ", %zu kept from the report being resumed", done.size());
  std::fprintf(stdout, "\n");
  std::fflush(stdout);

  Progress progress(todo.size(), stderr, stderr_is_terminal());
  const auto start = std::chrono::steady_clock::now();
  // One process per GPU, each with its share of the cases dealt round-robin; with no GPU, one
  // process whose device cases are SKIPPED with the reason.
  std::vector<IsolatedCase> isolated;
  for (const RunCase& c : todo) isolated.push_back({run_case_stub(c), c.timeout_s});
  IsolationOptions isolation;
  isolation.processes = std::max<std::size_t>(devices.devices.size(), 1);
  isolation.process_name = "the worker process";
  const IsolatedJob job = [&](std::size_t slot, std::span<const std::size_t> share, const RowSender& send) {
    RunWorkerOptions worker;
    worker.device = devices.devices.empty() ? 0 : devices.devices[slot];
    worker.lookahead = options.lookahead;
    worker.backend = options.backend;
    run_worker_cases(worker, todo, share, send);
  };
  // Every row, a process's or one the isolation wrote for a lost case, settled here, in one place.
  SettleContext settle{CaseOrigin::curated, backend_kind(options.backend),
                       !devices.devices.empty() || runs_on_host(options.backend), &known_bugs};
  run_isolated(isolated, job, isolation, [&](std::size_t i, CaseResult row) {
    settle.origin = todo[i].origin;
    settle_case(row, settle);
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
  if (reports) {
    HtmlReportOptions html;
    html.space = plan_options.space;
    if (factors) html.factor_coverage = factor_coverage_grid(*factors, kDefaultCoverageStrength, rows);
    reports->finish(html);
  }
  const int status = print_summary(stdout, rows);
  if (plan_options.space) {
    const std::string excluded = space_excludes_text(*plan_options.space);
    std::fprintf(stdout, "the backend's space excludes: %s\n", excluded.empty() ? "nothing" : excluded.c_str());
  }
  if (const BoundUsedSummary used = bound_used_summary(rows); used.cases > 0) {
    std::fprintf(stdout, "bound used by %zu passed cases (rms_rel_err / tol_rms): median %.3g, p90 %.3g, max %.3g\n",
                 used.cases, used.median, used.p90, used.max);
  }
  if (devices.devices.empty()) print_nothing_checked(stdout, rows, devices.no_gpu_reason);
  if (reports) {
    std::fprintf(stdout, "report: %s\n", std::filesystem::absolute(reports->file(ReportFolder::kHtml)).c_str());
  }
  return status;
}

}  // namespace mlacheck::cli
