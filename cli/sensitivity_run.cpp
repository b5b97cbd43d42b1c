#include "cli/sensitivity_run.hpp"

#include <algorithm>

#include "cli/forked_pool.hpp"
#include "cli/worker_protocol.hpp"
#include "device/backend_factory.hpp"
#include "harness/case_prefetch.hpp"
#include "harness/lost_case.hpp"
#include "plan/case_settle.hpp"
#include "plan/run_plan.hpp"

namespace mlacheck::cli {

namespace {

// The fault sets of a seed's child: the clean run first, then one per fault.
std::vector<FaultSet> fault_sets(const std::vector<Fault>& faults) {
  std::vector<FaultSet> sets{FaultSet{}};
  for (Fault f : faults) sets.push_back(FaultSet{f});
  return sets;
}

// In the child: every case under every set, the rows as frames numbered case * sets + set.
std::string run_seed_in_child(const std::vector<SensitivityCase>& cases, const std::vector<FaultSet>& sets,
                              const SensitivityOptions& options) {
  std::vector<CaseProblem> sweep;
  for (const SensitivityCase& c : cases) sweep.emplace_back(c.problem);
  BackendOrReason backend = make_backend("hip", options.device);
  std::string frames;
  // The parent saw a GPU (preflight): a backend that did not start is an error.
  SettleContext settle{CaseOrigin::curated, BackendKind::built_in, true, &options.known_bugs};
  run_cases_under_fault_sets(sweep, backend.backend.get(), backend.reason, sets, PrefetchOptions{options.lookahead},
                             [&](std::size_t i, std::size_t s, CaseResult row) {
                               settle.origin = cases[i].origin;
                               settle_case(row, settle);
                               frames += encode_row_frame(i * sets.size() + s, row);
                             });
  return frames;
}

// The watchdog of a seed's child: the base, then each case's share of run_plan's limit (its
// oracle and kernels) once per set, times the children sharing the GPU and the cores.
double seed_timeout_s(const std::vector<SensitivityCase>& cases, std::size_t sets, const SensitivityOptions& options) {
  double work = 0.0;
  for (const SensitivityCase& c : cases) work += case_timeout_s(to_repro(c.problem), 0.0);
  return options.timeout_base_s + work * static_cast<double>(sets) * std::max(options.jobs, 1);
}

}  // namespace

std::vector<SensitivityRun> seed_runs(std::uint64_t seed, std::size_t cases, const std::vector<Fault>& faults,
                                      const ChildOutcome& outcome, double timeout) {
  const std::size_t sets = 1 + faults.size();
  std::vector<SensitivityRun> runs(sets);
  for (std::size_t s = 0; s < sets; ++s) {
    runs[s].seed = seed;
    if (s > 0) runs[s].fault = faults[s - 1];
    runs[s].cases = cases;
    runs[s].rows.resize(cases);
  }
  std::string why;
  std::vector<bool> came_back(cases * sets, false);
  if (outcome.reported) {
    try {
      std::string buffer = outcome.output;
      for (RowFrame& f : take_row_frames(buffer)) {
        if (f.index >= came_back.size()) throw std::runtime_error("a row numbered past the plan");
        runs[f.index % sets].rows[f.index / sets] = std::move(f.row);
        came_back[f.index] = true;
      }
      if (!buffer.empty()) why = process_died_reason("the seed's process", "a garbled row");
    } catch (const std::exception& e) {
      why = process_died_reason("the seed's process", std::string("a garbled row: ") + e.what());
    }
  } else {
    why = outcome.timed_out ? watchdog_reason(timeout, "the seed's process")
                            : process_died_reason("the seed's process", outcome.ended);
  }
  for (std::size_t s = 0; s < sets; ++s) {
    std::vector<CaseResult> kept;
    for (std::size_t i = 0; i < cases; ++i) {
      if (came_back[i * sets + s]) kept.push_back(std::move(runs[s].rows[i]));
    }
    const bool whole = kept.size() == cases;
    if (!whole && why.empty()) why = "rows missing from the seed's process";
    runs[s].rows = std::move(kept);
    runs[s].lost = whole ? "" : why;
  }
  return runs;
}

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
  std::vector<ForkedJob> jobs;
  for (std::uint64_t seed : options.seeds) {
    plans.push_back(sensitivity_cases(seed, options.property_cases, options.scenarios_file));
  }
  for (const std::vector<SensitivityCase>& cases : plans) {
    jobs.push_back({[&cases, &sets, &options] { return run_seed_in_child(cases, sets, options); },
                    seed_timeout_s(cases, sets.size(), options)});
  }
  std::vector<std::vector<SensitivityRun>> by_seed(options.seeds.size());
  run_forked_pool(jobs, static_cast<std::size_t>(std::max(options.jobs, 1)), [&](std::size_t k, ChildOutcome outcome) {
    by_seed[k] = seed_runs(options.seeds[k], plans[k].size(), options.faults, outcome, jobs[k].timeout_s);
    if (on_seed) on_seed(options.seeds[k], by_seed[k]);
  });
  std::vector<SensitivityRun> out;
  for (auto& runs : by_seed) {
    for (SensitivityRun& r : runs) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mlacheck::cli
