#include "cli/scenarios_command.hpp"

#include <algorithm>
#include <cstdio>
#include <span>
#include <stdexcept>

#include "cli/backend_description.hpp"
#include "cli/device_preflight.hpp"
#include "cli/exit_status.hpp"
#include "run/isolated_cases.hpp"
#include "cli/kill_matrix_table.hpp"
#include "cli/option_checks.hpp"
#include "cli/progress.hpp"
#include "cli/result_table.hpp"
#include "cli/sensitivity_section.hpp"
#include "device/backend_factory.hpp"
#include "plan/case_settle.hpp"
#include "plan/data_files.hpp"
#include "plan/run_plan.hpp"
#include "scenarios/kill_matrix.hpp"
#include "scenarios/known_bugs.hpp"
#include "scenarios/scenario.hpp"

namespace mlacheck::cli {

namespace {

// One line per scenario: its clean state and how its own fault was caught, with the reasons
// that matter. `own` is null when the fault was not run (a backend plugin has no faults).
void print_scenario_line(const scenarios::Scenario& s, const scenarios::KillMatrixRow& row, const CaseResult* own_row) {
  const auto clean = to_string(row.clean.state);
  const auto fault = to_string(s.fault);
  std::printf("%-44s %-3s clean %-8.*s %.*s: ", s.id.c_str(), s.upstream.c_str(), static_cast<int>(clean.size()),
              clean.data(), static_cast<int>(fault.size()), fault.data());
  if (own_row == nullptr) {
    std::printf("not applicable to a backend plugin");
    if (row.clean.state != ResultState::passed && !row.clean.reason.empty()) {
      std::printf("\n    clean: %s", row.clean.reason.c_str());
    }
    std::printf("\n");
    return;
  }
  const CaseResult& own = *own_row;
  const scenarios::HowCaught how = scenarios::how_caught(own);
  if (scenarios::caught(own.state)) {
    std::printf("caught by %s", how.detail.c_str());
  } else {
    const auto state = to_string(own.state);
    std::printf("NOT caught (%.*s)", static_cast<int>(state.size()), state.data());
  }
  std::printf(" [designed: %s]", scenarios::join_catch_kinds(s.caught_by).c_str());
  if (row.clean.state != ResultState::passed && !row.clean.reason.empty()) {
    std::printf("\n    clean: %s", row.clean.reason.c_str());
  }
  std::printf("\n");
}

}  // namespace

void add_scenarios_command(CLI::App& app, ScenariosOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "scenarios", "Run every upstream scenario clean and with every fault, and print the kill matrix");
  cmd->add_option("--file", options.file, "Scenario table (default: scenarios/upstream.csv, scenarios/README.md)");
  cmd->add_option("--known-bugs", options.known_bugs, "Known-bug table (default: scenarios/known_bugs.csv); empty for none");
  cmd->add_option("--device", options.device, "GPU index (default 0)")->check(whole_number(0, 1023));
  cmd->add_flag("--verbose,-v", options.verbose, "Print every row of the matrix with its repro string");
  cmd->add_flag("--list", options.list, "List the scenarios (id, bug, fault, how it is caught) and run nothing");
  cmd->add_option("--timeout", options.timeout_base_s, "Watchdog base limit per case in seconds (grows with size)")
      ->capture_default_str()
      ->check(finite_number(0.0, kMaxTimeoutSeconds, true));
  cmd->add_option("--backend", options.backend, "\"hip\" or the path of a backend plugin .so (clean rows only)")
      ->capture_default_str();
  CLI::Option* sensitivity =
      cmd->add_flag("--sensitivity", options.sensitivity,
                    "Instead of the kill matrix, run the default main job's mla_decode cases clean and with every "
                    "precision fault on each seed, and print how each fault was caught (docs/faults.md)");
  cmd->add_option("--seeds", options.seeds, "Sensitivity: seeds 1 .. N of the main job's plan")
      ->capture_default_str()
      ->check(whole_number(1, kMaxSeeds))
      ->needs(sensitivity);
  cmd->add_option("--fault", options.faults, "Sensitivity: only this precision fault (repeatable)")->needs(sensitivity);
  cmd->add_option("--jobs", options.jobs,
                  "Sensitivity: processes at once on the GPU, each with a share of the cases "
                  "(default: half the cores, at most one per seed)")
      ->check(whole_number(1, 1024))
      ->needs(sensitivity);
  cmd->add_option("--out", options.out_dir,
                  "Sensitivity: folder for sensitivity.csv and sensitivity_seeds.csv (default mlacheck-report)")
      ->needs(sensitivity);
}

int run_scenarios(const ScenariosOptions& options) {
  if (options.sensitivity) return run_sensitivity_section(options);
  // A table that does not load is the user's input error: TableError propagates to main (exit 2).
  const std::string file = scenario_table_path(options.file);
  std::vector<scenarios::Scenario> table = scenarios::load_scenarios(file);
  const std::string known_file = options.known_bugs ? (options.known_bugs->empty() ? "" : known_bug_table_path(*options.known_bugs))
                                                     : known_bug_table_path("");
  const std::vector<scenarios::KnownBug> known = load_known_bug_table(options.known_bugs);
  if (options.list) {
    std::printf("%zu scenarios from %s; known bugs from %s\n", table.size(), file.c_str(),
                known_file.empty() ? "(none)" : known_file.c_str());
    for (const scenarios::Scenario& s : table) {
      const auto fault = to_string(s.fault);
      std::printf("%-44s %-3s %-32.*s caught by %s\n", s.id.c_str(), s.upstream.c_str(), static_cast<int>(fault.size()),
                  fault.data(), scenarios::join_catch_kinds(s.caught_by).c_str());
    }
    return kExitOk;
  }
  // A file that is no usable plugin, or a plugin that cannot start, is the user's error (exit 2).
  const std::string backend = describe_backend(options.backend);
  const bool plugin = is_plugin_spec(options.backend);
  // A plugin runs mla_decode only (backend_abi.h): the gather scenarios test our own gather kernels.
  std::size_t not_applicable = 0;
  if (plugin) {
    not_applicable = static_cast<std::size_t>(std::erase_if(table, [](const scenarios::Scenario& s) {
      return op_name(s.problem) != MlaDecodeOp::name;
    }));
  }
  const DevicePlan devices = preflight_devices(options.device.value_or(0), options.backend);
  const bool available = !devices.devices.empty();
  const int device = available ? devices.devices.front() : 0;
  std::printf("backend: %s\n", backend.c_str());
  std::printf("device: %s\n", available ? ("GPU " + std::to_string(device) + " " + devices.names.front()).c_str()
                                        : ("none: " + devices.no_gpu_reason).c_str());
  // Faults are branches inside mlacheck's own pipeline: a plugin has none to switch on.
  const std::span<const Fault> faults = plugin ? std::span<const Fault>() : std::span<const Fault>(kAllFaults);
  if (plugin) {
    std::printf("%zu scenarios from %s, each clean (the fault columns are not applicable to a backend plugin), "
                "each case in a process of its own; %zu kv_gather scenarios left out (plugins run mla_decode)\n",
                table.size(), file.c_str(), not_applicable);
  } else {
    std::printf("%zu scenarios from %s, each clean and with %zu faults, each case in a process of its own\n",
                table.size(), file.c_str(), std::size(kAllFaults));
  }

  std::size_t done = 0;
  // Failures so far count clean rows: a faulted row that fails is its fault caught.
  Progress progress(table.size() * (1 + faults.size()), stderr, stderr_is_terminal());
  const auto on_row = [&](const CaseResult& row) {
    if (options.verbose) print_row(stdout, row, true);
    ++done;
    progress.case_done(row.faults.empty() && is_failure(row.state));
  };
  // Each case in a process of its own where there is a device: a fault may lose it or hang. Every
  // row settled as every route settles it; scenarios are curated.
  const SettleContext settle{CaseOrigin::curated, backend_kind(options.backend), available, &known};
  const scenarios::ScenarioRunner run = [&](const scenarios::Scenario& s, const FaultSet& f) {
    CaseResult row = available ? run_case_isolated(s.problem, f, device,
                                                   case_timeout_s(to_repro(s.problem), options.timeout_base_s),
                                                   options.backend)
                               : scenarios::run_scenario(s, nullptr, devices.no_gpu_reason, f);
    settle_case(row, settle);
    return row;
  };
  const scenarios::KillMatrix m = scenarios::run_kill_matrix(table, run, on_row, faults);
  progress.finish();
  for (std::size_t r = 0; r < m.rows.size(); ++r) {
    const bool own_ran = std::find(m.faults.begin(), m.faults.end(), m.rows[r].intended) != m.faults.end();
    print_scenario_line(table[r], m.rows[r], own_ran ? &m.cell_row(r, m.rows[r].intended) : nullptr);
  }
  std::printf("\n");
  print_kill_matrix(stdout, m);

  if (!available) {
    std::printf("NOTHING WAS CHECKED ON A DEVICE: no GPU (%s); all %zu cases are SKIPPED\n",
                devices.no_gpu_reason.c_str(), done);
    return kExitOk;
  }
  const std::vector<std::string> problems = scenarios::kill_matrix_problems(m);
  const std::vector<std::string> unchecked = scenarios::kill_matrix_unchecked(m);
  for (const std::string& u : unchecked) std::printf("NOT CHECKED ON THIS MACHINE: %s\n", u.c_str());
  for (const std::string& p : problems) std::printf("PROBLEM: %s\n", p.c_str());
  std::printf("%s: %zu cases, %zu problems", problems.empty() ? "ok" : "NOT OK", done, problems.size());
  if (!unchecked.empty()) std::printf(", %zu scenarios not checked", unchecked.size());
  std::printf("\n");
  return problems.empty() ? kExitOk : kExitCaseFailed;
}

}  // namespace mlacheck::cli
