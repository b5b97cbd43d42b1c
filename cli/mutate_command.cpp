#include "cli/mutate_command.hpp"

#include <cstdio>
#include <stdexcept>

#include <rapidcheck/detail/Configuration.h>

#include "cli/device_preflight.hpp"
#include "cli/exit_status.hpp"
#include "cli/fault_search.hpp"
#include "cli/option_checks.hpp"
#include "run/isolated_cases.hpp"
#include "cli/progress.hpp"
#include "plan/case_settle.hpp"
#include "plan/run_plan.hpp"

namespace mlacheck::cli {

namespace {

std::vector<Fault> chosen_faults(const std::vector<std::string>& names) {
  if (names.empty()) return {std::begin(kAllFaults), std::end(kAllFaults)};
  std::vector<Fault> out;
  for (const std::string& n : names) {
    const auto f = parse_fault(n);
    if (!f) throw std::invalid_argument("--fault " + n + ": not a fault name (device/faults.hpp)");
    out.push_back(*f);
  }
  return out;
}

}  // namespace

void add_mutate_command(CLI::App& app, MutateOptions& options) {
  CLI::App* cmd =
      app.add_subcommand("mutate", "Run the random properties against each fault and report which are caught");
  cmd->add_option("--seed", options.seed, "rapidcheck seed")->capture_default_str()->check(unsigned_64());
  cmd->add_option("--cases", options.max_cases, "Device cases per fault before it counts as surviving")
      ->capture_default_str()
      ->check(whole_number(1, 1'000'000));
  cmd->add_option("--fault", options.faults, "Hunt only this fault (repeatable)");
  cmd->add_option("--max-batch", options.max_batch, "Most requests of a generated case")
      ->capture_default_str()
      ->check(whole_number(1, 4096));
  cmd->add_option("--max-kv-len", options.max_kv_len, "Longest cache of a generated request")
      ->capture_default_str()
      ->check(whole_number(1, 1 << 24));
  cmd->add_option(
         "--past-4gib-percent", options.past_4gib_percent,
         "Percent of generated cases with their cache blocks past 4 GiB of pool (over 4 GiB of device memory each)")
      ->capture_default_str()
      ->check(whole_number(0, 100));
  cmd->add_option("--device", options.device, "GPU index")->capture_default_str()->check(whole_number(0, 1023));
  cmd->add_option("--timeout", options.timeout_base_s, "Watchdog base limit per case in seconds (grows with size)")
      ->capture_default_str()
      ->check(finite_number(0.0, kMaxTimeoutSeconds, true));
}

int run_mutate(const MutateOptions& options) {
  const std::vector<Fault> faults = chosen_faults(options.faults);
  const DevicePlan devices = preflight_devices(options.device);
  if (devices.devices.empty()) {
    for (Fault f : faults) {
      const auto name = to_string(f);
      std::printf("%-32.*s SKIPPED: %s\n", static_cast<int>(name.size()), name.data(), devices.no_gpu_reason.c_str());
    }
    std::printf("NOTHING WAS CHECKED ON A DEVICE: no GPU (%s)\n", devices.no_gpu_reason.c_str());
    return kExitOk;
  }
  // rapidcheck announces its configuration on first use; let that happen before the table.
  rc::detail::configuration();
  std::printf("device: GPU %d %s; seed %llu, up to %d cases per fault, each case in a process of its own\n",
              options.device, devices.names.front().c_str(), static_cast<unsigned long long>(options.seed),
              options.max_cases);
  // Generated cases on the built-in backend, settled as every route settles them: a fault's row is
  // never excused by a known bug, a clean one may be.
  const std::vector<scenarios::KnownBug> known_bugs = load_known_bug_table(std::nullopt);
  const SettleContext settle{CaseOrigin::generated, BackendKind::built_in, true, &known_bugs};
  // Progress counts device cases with the fault on (shrink steps included) against the most the
  // hunts left can run; failures are generated cases the correct pipeline fails.
  const auto budget = static_cast<std::size_t>(options.max_cases);
  Progress progress(faults.size() * budget, stderr, stderr_is_terminal());
  const CaseRunner run = [&](const CaseProblem& c, const FaultSet& f) {
    CaseResult row = run_case_isolated(c, f, options.device, case_timeout_s(to_repro(c), options.timeout_base_s));
    settle_case(row, settle);
    if (!f.empty()) {
      progress.case_done(false);
    } else if (is_failure(row.state)) {
      progress.add_failure();  // the clean run of the generated case just counted
    }
    return row;
  };
  std::printf("%-32s %-7s %6s %8s  %s\n", "fault", "caught", "cases", "shrinks", "counterexample");
  int exit_status = kExitOk;
  std::size_t hunted = 0;
  for (Fault f : faults) {
    FaultSearchOptions search{options.seed, options.max_cases, {}, {}};
    search.mla_limits.max_batch = search.gather_limits.max_batch = options.max_batch;
    search.mla_limits.max_kv_len = search.gather_limits.max_kv_len = options.max_kv_len;
    // Keeps the oracle's side of one case near a second however many heads were drawn.
    search.mla_limits.max_oracle_flops = 4e9;
    // Cases the kernels refuse prove nothing about a fault: draw only what they take.
    search.mla_limits.device_shapes_only = true;
    search.mla_limits.past_4gib_percent = options.past_4gib_percent;
    const FaultSearchResult r = search_fault(f, run, search);
    const auto name = to_string(f);
    std::printf("%-32.*s %-7s %6d %8d", static_cast<int>(name.size()), name.data(), r.caught ? "yes" : "NO", r.cases,
                r.shrinks);
    if (r.caught) {
      std::printf("  %s\n    %s\n", r.repro.c_str(), r.caught_as.c_str());
    } else {
      std::printf("  survived %d cases%s%s\n", r.cases, r.error.empty() ? "" : ": ", r.error.c_str());
      exit_status = kExitCaseFailed;
    }
    for (const std::string& repro : r.clean_failures) {
      std::printf("    the correct pipeline fails: %s\n", repro.c_str());
      exit_status = kExitCaseFailed;
    }
    std::fflush(stdout);
    progress.set_total(progress.done() + (faults.size() - ++hunted) * budget);
  }
  progress.finish();
  return exit_status;
}

}  // namespace mlacheck::cli
