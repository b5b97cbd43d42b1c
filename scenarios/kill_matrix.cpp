#include "scenarios/kill_matrix.hpp"

#include <algorithm>
#include <stdexcept>

#include "harness/op_registry.hpp"

namespace mlacheck::scenarios {

CaseResult run_scenario(const Scenario& s, Backend* backend, std::string_view unavailable_reason,
                        const FaultSet& faults) {
  return run_case(s.problem, backend, unavailable_reason, faults);
}

bool caught(ResultState s) { return s == ResultState::failed || s == ResultState::errored; }

const CaseResult& KillMatrix::cell_row(std::size_t row, Fault f) const {
  const auto it = std::find(faults.begin(), faults.end(), f);
  if (it == faults.end()) throw std::out_of_range("fault " + std::string(to_string(f)) + " is not a column");
  return rows.at(row).with_fault.at(static_cast<std::size_t>(it - faults.begin()));
}

ResultState KillMatrix::cell(std::size_t row, Fault f) const { return cell_row(row, f).state; }

KillMatrix run_kill_matrix(const std::vector<Scenario>& scenarios, const ScenarioRunner& run,
                           const std::function<void(const CaseResult&)>& on_row, std::span<const Fault> faults) {
  KillMatrix m;
  m.faults.assign(faults.begin(), faults.end());
  for (const Scenario& s : scenarios) {
    KillMatrixRow row{s.id, s.fault, s.caught_by, run(s, {}), {}};
    if (on_row) on_row(row.clean);
    for (Fault f : m.faults) {
      row.with_fault.push_back(run(s, {f}));
      if (on_row) on_row(row.with_fault.back());
    }
    m.rows.push_back(std::move(row));
  }
  return m;
}

namespace {

// A settled clean row SKIPPED by its skip reason for not enough memory, a refusal by an external
// backend (unsupported: the built-in's refusal of a curated case is FAILED, plan/case_settle.hpp)
// or policy: the scenario was not checked, which is no failure. No device, or a kind unknown, is
// a problem.
bool not_checked(const CaseResult& clean) {
  if (clean.state != ResultState::skipped) return false;
  return clean.skip_reason == SkipReason::not_enough_memory || clean.skip_reason == SkipReason::unsupported ||
         clean.skip_reason == SkipReason::not_checked_by_policy;
}

}  // namespace

std::vector<std::string> kill_matrix_unchecked(const KillMatrix& m) {
  std::vector<std::string> unchecked;
  for (const KillMatrixRow& row : m.rows) {
    if (not_checked(row.clean)) {
      unchecked.push_back(row.scenario + ": " + row.clean.reason);
    }
  }
  return unchecked;
}

std::vector<std::string> kill_matrix_problems(const KillMatrix& m) {
  std::vector<std::string> problems;
  for (std::size_t r = 0; r < m.rows.size(); ++r) {
    const KillMatrixRow& row = m.rows[r];
    const ResultState clean = row.clean.state;
    if (clean == ResultState::known_bug) continue;
    if (not_checked(row.clean)) continue;  // kill_matrix_unchecked
    if (clean != ResultState::passed) {
      problems.push_back(row.scenario + ": the clean run is " + std::string(to_string(clean)) + ": " +
                         row.clean.reason);
      continue;
    }
    if (std::find(m.faults.begin(), m.faults.end(), row.intended) == m.faults.end()) continue;
    const std::string fault(to_string(row.intended));
    const CaseResult& with_fault = m.cell_row(r, row.intended);
    if (!caught(with_fault.state)) {
      problems.push_back(row.scenario + ": its fault " + fault + " survived (" +
                         std::string(to_string(with_fault.state)) + ")");
      continue;
    }
    const HowCaught how = how_caught(with_fault);
    if (std::none_of(row.caught_by.begin(), row.caught_by.end(), [&](CatchKind k) { return how.has(k); })) {
      problems.push_back(row.scenario + ": its fault " + fault + " must be caught by " +
                         join_catch_kinds(row.caught_by) + ", but was caught by " + how.detail);
    }
  }
  return problems;
}

}  // namespace mlacheck::scenarios
