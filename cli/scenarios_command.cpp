#include "cli/scenarios_command.hpp"

#include <algorithm>
#include <cstdio>
#include <span>
#include <stdexcept>

#include "cli/backend_description.hpp"
#include "cli/isolated_case.hpp"
#include "cli/kill_matrix_table.hpp"
#include "cli/result_table.hpp"
#include "device/backend_factory.hpp"
#include "scenarios/kill_matrix.hpp"
#include "scenarios/known_bugs.hpp"
#include "scenarios/scenario.hpp"

namespace mlacheck::cli {

namespace {

// One line per scenario: its clean state and its own fault's state, with the reasons that matter.
// `own` is null when the fault was not run (a backend plugin).
void print_scenario_line(const scenarios::Scenario& s, const scenarios::KillMatrixRow& row, const CaseResult* own) {
  const auto clean = to_string(row.clean.state);
  const auto fault = to_string(s.fault);
  const std::string_view state = own != nullptr ? to_string(own->state) : "not applicable";
  std::printf("%-44s %-3s clean %-8.*s %.*s %.*s", s.id.c_str(), s.upstream.c_str(), static_cast<int>(clean.size()),
              clean.data(), static_cast<int>(fault.size()), fault.data(), static_cast<int>(state.size()), state.data());
  if (row.clean.state != ResultState::passed && !row.clean.reason.empty()) {
    std::printf("\n    clean: %s", row.clean.reason.c_str());
  } else if (own != nullptr && !own->reason.empty()) {
    std::printf("\n    %s", own->reason.c_str());
  }
  std::printf("\n");
}

}  // namespace

void add_scenarios_command(CLI::App& app, ScenariosOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "scenarios", "Run every upstream scenario clean and with every fault, and print the kill matrix");
  cmd->add_option("--file", options.file, "Scenario table (scenarios/README.md)")->capture_default_str();
  cmd->add_option("--known-bugs", options.known_bugs, "Known-bug table; empty for none")->capture_default_str();
  cmd->add_option("--device", options.device, "GPU index")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_flag("--verbose,-v", options.verbose, "Print every row of the matrix with its repro string");
  cmd->add_option("--backend", options.backend, "\"hip\" or the path of a backend plugin .so (clean rows only)")
      ->capture_default_str();
}

int run_scenarios(const ScenariosOptions& options) {
  // A table that does not load is the user's input error: TableError propagates to main (exit 2).
  const std::vector<scenarios::Scenario> table = scenarios::load_scenarios(options.file);
  const std::vector<scenarios::KnownBug> known =
      options.known_bugs.empty() ? std::vector<scenarios::KnownBug>{} : scenarios::load_known_bugs(options.known_bugs);
  // A file that is no usable plugin, or a plugin whose open() fails, is the user's error (exit 2).
  const std::string backend = describe_backend(options.backend);
  const bool plugin = is_plugin_spec(options.backend);
  const ProbedDevice device = probe_device(options.device, options.backend);
  if (plugin && device.backend_failed) throw std::runtime_error(device.unavailable_reason);
  const bool available = !device.name.empty();
  std::printf("backend: %s\n", backend.c_str());
  std::printf("device: %s\n", available ? device.name.c_str() : ("none: " + device.unavailable_reason).c_str());
  // Faults are branches inside mlacheck's own pipeline: a plugin has none to switch on.
  const std::span<const Fault> faults = plugin ? std::span<const Fault>() : std::span<const Fault>(kAllFaults);
  if (plugin) {
    std::printf("%zu scenarios from %s, each clean; the fault columns are not applicable to a backend plugin\n",
                table.size(), options.file.c_str());
  } else {
    std::printf("%zu scenarios from %s, each clean and with %zu faults\n", table.size(), options.file.c_str(),
                std::size(kAllFaults));
  }

  std::size_t done = 0;
  const auto on_row = [&](const CaseResult& row) {
    if (options.verbose) print_row(stdout, row, true);
    ++done;
  };
  // Each case in a process of its own where there is a device: a fault may lose it.
  const scenarios::ScenarioRunner run = [&](const scenarios::Scenario& s, const FaultSet& f) {
    return available ? run_case_in_child(s.problem, f, options.device, options.backend)
                     : scenarios::run_scenario(s, nullptr, device.unavailable_reason, f);
  };
  const scenarios::KillMatrix m = scenarios::run_kill_matrix(table, run, known, on_row, faults);
  for (std::size_t r = 0; r < m.rows.size(); ++r) {
    const auto& row = m.rows[r];
    const auto own = std::find(m.faults.begin(), m.faults.end(), row.intended);
    print_scenario_line(table[r], row,
                        own == m.faults.end() ? nullptr : &row.with_fault[static_cast<std::size_t>(own - m.faults.begin())]);
  }
  std::printf("\n");
  print_kill_matrix(stdout, m);

  const std::vector<std::string> problems = scenarios::kill_matrix_problems(m);
  for (const std::string& p : problems) std::printf("PROBLEM: %s\n", p.c_str());
  if (!available) {
    std::printf("%zu cases SKIPPED: %s\n", done, device.unavailable_reason.c_str());
    return 0;
  }
  std::printf("%s: %zu cases, %zu problems\n", problems.empty() ? "ok" : "NOT OK", done, problems.size());
  return problems.empty() ? 0 : 1;
}

}  // namespace mlacheck::cli
