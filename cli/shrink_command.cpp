#include "cli/shrink_command.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "cli/backend_description.hpp"
#include "cli/device_preflight.hpp"
#include "cli/exit_status.hpp"
#include "cli/option_checks.hpp"
#include "run/isolated_cases.hpp"
#include "core/error.hpp"
#include "plan/run_plan.hpp"
#include "reports/report_folder.hpp"

namespace mlacheck::cli {

namespace {

// The case of --case, or an error that names the option.
MlaDecodeProblem case_to_shrink(const std::string& repro) {
  try {
    return shrinkable_case(repro);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--case: ") + e.what());
  }
}

std::string verdict_line(const CaseResult& row) {
  std::string line(to_string(row.state));
  if (!row.reason.empty()) line += ": " + row.reason;
  return line;
}

std::string replay_command(const std::string& backend, const std::string& repro) {
  std::string command = "mlacheck run";
  if (backend != "hip") command += " --backend " + backend;
  return command + " --case \"" + repro + "\"";
}

}  // namespace

void add_shrink_command(CLI::App& app, ShrinkCommandOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "shrink", "Cut a failing case down to the smallest case that still fails the same way (docs/shrinking.md)");
  cmd->add_option("--case", options.case_repro, "The failing case's repro string")->required();
  cmd->add_option("--backend", options.backend, "\"hip\" or the path of a backend plugin .so (docs/backends.md)")
      ->capture_default_str();
  cmd->add_option("--max-steps", options.bounds.max_steps, "Most candidate cases to run")
      ->capture_default_str()
      ->check(whole_number(1, 1'000'000));
  cmd->add_option("--max-seconds", options.bounds.max_seconds, "Start no candidate after this many seconds")
      ->capture_default_str()
      ->check(finite_number(0.0, 7 * kMaxTimeoutSeconds, true));
  cmd->add_option("--device", options.device, "GPU index (default 0)")->check(whole_number(0, 1023));
  cmd->add_option("--timeout", options.timeout_base_s, "Watchdog base limit per case in seconds (grows with size)")
      ->capture_default_str()
      ->check(finite_number(0.0, kMaxTimeoutSeconds, true));
  cmd->add_option("--out", options.out_dir,
                  "Write a report of the original's row, the shrunk case in its shrunk_repro column, here");
  cmd->add_flag("--force", options.force, "Replace a report the --out folder already holds");
}

int run_shrink(const ShrinkCommandOptions& options) {
  const MlaDecodeProblem original = case_to_shrink(options.case_repro);
  const std::string backend = describe_backend(options.backend);
  const DevicePlan devices = preflight_devices(options.device.value_or(0), options.backend);
  if (devices.devices.empty()) {
    throw PreflightError("no device to run the backend on: " + devices.no_gpu_reason +
                         " (a case can be shrunk only where it runs)");
  }
  std::optional<ReportFolder> report;
  if (!options.out_dir.empty()) {
    report.emplace(options.out_dir, options.force ? ReportFolder::Mode::replace : ReportFolder::Mode::fresh);
  }
  const int device = devices.devices.front();
  std::printf(
      "backend: %s\ndevice: %s\n", backend.c_str(),
      devices.names.front() == "cpu" ? "cpu" : ("GPU " + std::to_string(device) + " " + devices.names.front()).c_str());
  std::printf("bounds: %d candidates, %g s; each case in a process of its own\n", options.bounds.max_steps,
              options.bounds.max_seconds);
  std::fflush(stdout);

  const ShrinkJudge judge = [&](const MlaDecodeProblem& p) {
    const std::string repro = to_repro(p);
    return run_case_isolated(p, {}, device, case_timeout_s(repro, options.timeout_base_s), options.backend);
  };
  const ShrinkResult r = shrink_mla_case(original, judge, options.bounds);

  std::printf("original: %s\n  %s\n", verdict_line(r.original_row).c_str(),
              replay_command(options.backend, r.original_repro).c_str());
  CaseResult row = r.original_row;
  if (r.stop == ShrinkStop::not_failing) {
    std::printf("NOT FAILING: the case does not fail on this backend; nothing to shrink, the original is kept\n");
  } else {
    row.shrunk_repro = r.shrunk_repro;
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
      std::printf("step %zu: %s\n  %s\n", i + 1, r.steps[i].change.c_str(), r.steps[i].repro.c_str());
    }
    if (r.reruns_not_failing > 0) {
      std::printf(
          "%d shrunk cases passed when re-run (a failure that comes and goes): the result is the last "
          "one that failed again\n",
          r.reruns_not_failing);
    }
    std::printf("failure kept: %s\n", r.failure.c_str());
    std::printf("shrunk (%.*s after %zu steps, %d candidates run, %.1f s): %s\n",
                static_cast<int>(to_string(r.stop).size()), to_string(r.stop).data(), r.steps.size(), r.candidates_run,
                r.seconds, verdict_line(r.shrunk_row).c_str());
    std::printf("  %s\n", replay_command(options.backend, r.shrunk_repro).c_str());
  }
  if (report) {
    report->append(row);
    report->finish();
    std::printf("report: %s\n", std::filesystem::absolute(report->file(ReportFolder::kCsv)).c_str());
  }
  return r.stop == ShrinkStop::not_failing ? kExitOk : kExitCaseFailed;
}

}  // namespace mlacheck::cli
