#pragma once
// The property sitting of `mlacheck bench`'s harness section, measured for real: N property cases
// (their oracle work bounded by a per-case budget, as a tier's `properties` line bounds them) run
// through `mlacheck run --plan` in a child process of this very binary, so the figure is the one a
// user's sitting gets: isolated worker processes, one per visible GPU, costliest cases first, the
// oracle of the next cases prepared ahead, every row written to report.csv. The wall time covers
// the whole run, the plan's build included. Nothing is projected: the 100,000-case target is judged
// only on a sitting of at least 100,000 cases.
#include <cstdint>
#include <optional>
#include <string>

namespace mlacheck::cli {

struct SittingOptions {
  int cases = 2000;            // --sitting-cases
  double work_budget = 1e9;    // --sitting-budget: the pre-merge tier's per-case oracle work
  std::uint64_t seed = 1;
  std::string backend = "hip";  // a backend spec, as `mlacheck run --backend` takes it
  std::optional<int> device;    // one GPU; unset runs on every visible one, as `mlacheck run`
};

struct SittingResult {
  std::size_t planned = 0;          // cases in the sitting's plan
  std::size_t budget_redrawn = 0;   // draws over the work budget, drawn again
  std::size_t budget_left_out = 0;  // cases still over it after kBudgetRedraws draws: left out
  std::size_t rows = 0, passed = 0, failed = 0, errored = 0, skipped = 0, other = 0;
  double seconds = 0.0;             // wall time of the whole `mlacheck run`
  double per_second() const { return seconds > 0.0 ? static_cast<double>(rows) / seconds : 0.0; }
};

// Runs the sitting in a temporary folder (removed afterwards). Throws std::runtime_error naming
// the command and the end of its output when the run could not run (exit status other than 0 or
// 1, or a report that is missing or holds another number of rows than the plan's cases).
SittingResult run_property_sitting(const SittingOptions& options);

}  // namespace mlacheck::cli
