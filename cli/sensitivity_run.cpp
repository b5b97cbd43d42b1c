#include "cli/sensitivity_run.hpp"

#include <algorithm>

#include "run/isolated_cases.hpp"
#include "device/backend_factory.hpp"
#include "run/case_prefetch.hpp"
#include "harness/device_outcome.hpp"
#include "harness/op_registry.hpp"
#include "plan/case_settle.hpp"
#include "plan/run_plan.hpp"

namespace mlacheck::cli {

namespace {

// The fault sets of every case: the clean run first, then one per fault.
std::vector<FaultSet> fault_sets(const std::vector<Fault>& faults) {
  std::vector<FaultSet> sets{FaultSet{}};
  for (Fault f : faults) sets.push_back(FaultSet{f});
  return sets;
}

// Where a row belongs: row index (case * sets + set) over the seeds' cases laid end to end.
struct RowPlace {
  std::size_t seed = 0;  // index into options.seeds
  std::size_t item = 0;  // the case's index in its seed's plan
  std::size_t set = 0;
};

class SensitivityRows {
 public:
  SensitivityRows(const std::vector<std::vector<SensitivityCase>>& plans, std::size_t sets) : sets_(sets) {
    for (std::size_t k = 0; k < plans.size(); ++k) {
      for (std::size_t i = 0; i < plans[k].size(); ++i) places_.push_back({k, i, 0});
    }
  }
  std::size_t rows() const { return places_.size() * sets_; }
  RowPlace place(std::size_t row) const {
    RowPlace p = places_[row / sets_];
    p.set = row % sets_;
    return p;
  }
  std::size_t row(std::size_t case_index, std::size_t set) const { return case_index * sets_ + set; }

 private:
  std::size_t sets_;
  std::vector<RowPlace> places_;  // one per case, all seeds
};

// In a case's process: the rows `todo` (whole cases, except a first one whose earlier sets a
// previous process already ran), each case's CPU half once for all its sets.
void run_rows(const std::vector<std::vector<SensitivityCase>>& plans, const std::vector<FaultSet>& sets,
              const SensitivityRows& layout, std::span<const std::size_t> todo, const SensitivityOptions& options,
              const RowSender& send) {
  BackendOrReason backend = make_backend("hip", options.device);
  std::size_t at = 0;
  while (at < todo.size()) {
    // The next stretch of cases that share the same sets (all of them after a first partial case).
    std::vector<std::size_t> case_indices;
    std::vector<std::size_t> set_indices;
    while (at < todo.size()) {
      const std::size_t case_index = todo[at] / sets.size();
      std::vector<std::size_t> own;
      std::size_t end = at;
      while (end < todo.size() && todo[end] / sets.size() == case_index) own.push_back(todo[end++] % sets.size());
      if (!case_indices.empty() && own != set_indices) break;
      set_indices = std::move(own);
      case_indices.push_back(case_index);
      at = end;
    }
    std::vector<CaseProblem> sweep;
    std::vector<FaultSet> stretch_sets;
    for (std::size_t c : case_indices) {
      const RowPlace p = layout.place(layout.row(c, 0));
      sweep.emplace_back(plans[p.seed][p.item].problem);
    }
    for (std::size_t s : set_indices) stretch_sets.push_back(sets[s]);
    run_cases_under_fault_sets(sweep, backend.backend.get(), backend.reason, stretch_sets,
                               PrefetchOptions{options.lookahead}, [&](std::size_t i, std::size_t s, CaseResult row) {
                                 send(layout.row(case_indices[i], set_indices[s]), row);
                               });
  }
}

}  // namespace

std::vector<SensitivityCase> sensitivity_cases(std::uint64_t seed, int property_cases,
                                               const std::string& scenarios_file) {
  RunPlanOptions plan;
  plan.seed = seed;
  plan.property_cases = property_cases;
  plan.scenarios_file = scenarios_file;
  plan.oracle_self_checks = false;
  std::vector<SensitivityCase> out;
  for (const RunCase& c : build_run_plan(plan)) {
    if (c.kind != RunCase::Kind::device || op_of_repro(c.repro) != MlaDecodeOp::name) continue;
    out.push_back({parse_mla_decode(c.repro), c.origin});
  }
  return out;
}

std::vector<SensitivityRun> run_sensitivity(
    const SensitivityOptions& options,
    const std::function<void(std::uint64_t, const std::vector<SensitivityRun>&)>& on_seed) {
  if (options.seeds.empty()) return {};
  const std::vector<FaultSet> sets = fault_sets(options.faults);
  std::vector<std::vector<SensitivityCase>> plans;
  for (std::uint64_t seed : options.seeds) {
    plans.push_back(sensitivity_cases(seed, options.property_cases, options.scenarios_file));
  }
  const SensitivityRows layout(plans, sets.size());
  const int jobs = std::max(options.jobs, 1);

  // One isolated row per (case, set); the processes sharing the GPU and the cores stretch each
  // row's limit.
  std::vector<IsolatedCase> rows(layout.rows());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const RowPlace p = layout.place(r);
    const MlaDecodeProblem& problem = plans[p.seed][p.item].problem;
    CaseResult& stub = rows[r].stub;
    stub.id = problem.name;
    stub.op = std::string(MlaDecodeOp::name);
    stub.repro = to_repro(problem);
    stub.faults = describe_faults(sets[p.set]);
    rows[r].timeout_s = options.timeout_base_s + case_timeout_s(stub.repro, 0.0) * jobs;
  }

  std::vector<std::vector<SensitivityRun>> by_seed(options.seeds.size());
  std::vector<std::size_t> missing(options.seeds.size());
  for (std::size_t k = 0; k < options.seeds.size(); ++k) {
    by_seed[k].resize(sets.size());
    for (std::size_t s = 0; s < sets.size(); ++s) {
      SensitivityRun& run = by_seed[k][s];
      run.seed = options.seeds[k];
      if (s > 0) run.fault = options.faults[s - 1];
      run.cases = plans[k].size();
      run.rows.resize(plans[k].size());
    }
    missing[k] = plans[k].size() * sets.size();
    if (missing[k] == 0 && on_seed) on_seed(options.seeds[k], by_seed[k]);
  }

  IsolationOptions isolation;
  isolation.processes = static_cast<std::size_t>(jobs);
  isolation.group = sets.size();  // a case's sets stay in one process, on one oracle
  const IsolatedJob job = [&](std::size_t, std::span<const std::size_t> todo, const RowSender& send) {
    run_rows(plans, sets, layout, todo, options, send);
  };
  // Every row, a process's or one the isolation wrote for a lost case, settled here, in one place.
  // The parent saw a GPU (preflight): a backend that did not start is an error.
  SettleContext settle{CaseOrigin::curated, BackendKind::built_in, true, &options.known_bugs};
  run_isolated(rows, job, isolation, [&](std::size_t r, CaseResult row) {
    const RowPlace p = layout.place(r);
    settle.origin = plans[p.seed][p.item].origin;
    settle_case(row, settle);
    by_seed[p.seed][p.set].rows[p.item] = std::move(row);
    if (--missing[p.seed] == 0 && on_seed) on_seed(options.seeds[p.seed], by_seed[p.seed]);
  });

  std::vector<SensitivityRun> out;
  for (auto& runs : by_seed) {
    for (SensitivityRun& r : runs) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mlacheck::cli
