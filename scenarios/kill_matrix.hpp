#pragma once
// The kill matrix: every scenario run clean and with every fault, as plain data for the reports
// and the CLI to render. The harness proves its worth when each scenario passes clean and its own
// fault (the intended cell) is caught, i.e. FAILED or ERRORED.
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device/backend.hpp"
#include "harness/case_result.hpp"
#include "scenarios/catch_kind.hpp"
#include "scenarios/scenario.hpp"

namespace mlacheck::scenarios {

// One scenario run through the generic driver (harness/op_registry.hpp), with `faults` switched on.
CaseResult run_scenario(const Scenario& s, Backend* backend, std::string_view unavailable_reason,
                        const FaultSet& faults = {});

// FAILED or ERRORED: the check noticed the fault.
bool caught(ResultState s);

struct KillMatrixRow {
  std::string scenario;  // its id
  Fault intended;        // the scenario's own fault
  std::vector<CatchKind> caught_by;  // how the intended fault must be caught (one of these)
  CaseResult clean;      // as the runner settled it (plan/case_settle.hpp: known bugs applied)
  std::vector<CaseResult> with_fault;  // one per KillMatrix::faults entry, in that order
};

struct KillMatrix {
  std::vector<Fault> faults;  // the columns: every fault, in kAllFaults order
  std::vector<KillMatrixRow> rows;

  // The state of scenario row r under fault f, and its row.
  ResultState cell(std::size_t row, Fault f) const;
  const CaseResult& cell_row(std::size_t row, Fault f) const;
};

// Runs one scenario with a set of faults: run_scenario on some backend, in this process or, where
// a fault may lose the device, in a process of its own (run/isolated_cases.hpp); the row it returns
// is settled (plan/case_settle.hpp: the refusal policy, known bugs for the clean run).
using ScenarioRunner = std::function<CaseResult(const Scenario&, const FaultSet&)>;

// Runs every scenario clean and with each fault of `faults` (the columns) through `run`; on_row sees
// each CaseResult as it completes (clean first, then the faults in column order) so a long run
// shows progress. A backend plugin has no faults to switch on: its matrix has no columns.
KillMatrix run_kill_matrix(const std::vector<Scenario>& scenarios, const ScenarioRunner& run,
                           const std::function<void(const CaseResult&)>& on_row = {},
                           std::span<const Fault> faults = kAllFaults);

// What keeps the matrix from proving the harness, one line each naming the scenario; empty when
// the matrix is good:
//   - a clean run that is not PASSED (SKIPPED included: a scenario the backend refuses proves
//     nothing) unless a known bug excuses it; a scenario that did not pass clean is not held to
//     its fault;
//   - an intended fault that survived a clean PASS (a scenario whose fault is not a column of
//     the matrix, as for a plugin backend, is held to its clean run only);
//   - an intended fault caught in none of the scenario's caught_by ways (a fault designed to be
//     caught by the comparison that only crashed, say).
// A clean run SKIPPED for lack of memory (admission, Backend::lacks_memory: a pool past 4 GiB on a
// smaller machine), or one an external backend refused (settled SKIPPED, its backend named), is no
// problem but not checked either: kill_matrix_unchecked lists it.
// Callers without any GPU do not ask: every row is SKIPPED there and nothing was checked.
std::vector<std::string> kill_matrix_problems(const KillMatrix& m);

// The scenarios not checked, "<scenario>: <reason>" each: their clean run was SKIPPED for lack of
// memory or by an external backend's refusal, so neither it nor the fault columns say anything.
std::vector<std::string> kill_matrix_unchecked(const KillMatrix& m);

}  // namespace mlacheck::scenarios
