#pragma once
// Runs the sensitivity matrix (cli/sensitivity_matrix.hpp): for each seed, the mla_decode cases of
// the default `mlacheck run` plan of that seed, clean and with each precision fault. One forked
// child per seed (cli/forked_child.hpp, under a watchdog) runs all of them in-process on one
// backend: each case's inputs and oracle are made once and its device half runs once per fault
// (harness run_cases_under_fault_sets, oracles prefetched on threads), so a seed costs one oracle
// per case however many faults are measured. Seeds run in parallel children on the one GPU
// (cli/forked_pool.hpp). The caller must not have started the GPU runtime itself.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/forked_child.hpp"
#include "cli/sensitivity_matrix.hpp"
#include "core/mla_problem.hpp"
#include "device/faults.hpp"
#include "harness/case_origin.hpp"
#include "scenarios/known_bugs.hpp"

namespace mlacheck::cli {

struct SensitivityOptions {
  std::vector<std::uint64_t> seeds;
  std::vector<Fault> faults;
  int device = 0;
  int jobs = 1;                   // seeds in flight at once, each a child with its own GPU context
  std::size_t lookahead = 2;      // cases whose oracle a child prepares ahead of the GPU
  int property_cases = 64;        // as `mlacheck run`'s --property-cases
  std::string scenarios_file;     // the scenario table of the plan ("" for none)
  double timeout_base_s = 120.0;  // the watchdog's base limit (a child's limit grows with its work)
  std::vector<scenarios::KnownBug> known_bugs;  // the settle step's table (plan/case_settle.hpp)
};

struct SensitivityCase {
  MlaDecodeProblem problem;
  CaseOrigin origin = CaseOrigin::curated;
};

// The mla_decode device cases of build_run_plan for `seed` (plan/run_plan.hpp, as `mlacheck run`
// builds it): the scenarios, the default sweep and the property sweep's mla_decode draws. The
// oracle self-checks and the kv_gather cases are left out: no precision fault reaches them.
std::vector<SensitivityCase> sensitivity_cases(std::uint64_t seed, int property_cases,
                                               const std::string& scenarios_file);

// The runs of one seed (the clean run, then one per fault) from its child's outcome: the rows the
// child reported as frames numbered case * (1 + faults) + set, and, for a run missing rows, why
// (the child died, timed out after `timeout_s`, or sent a garbled row).
std::vector<SensitivityRun> seed_runs(std::uint64_t seed, std::size_t cases, const std::vector<Fault>& faults,
                                      const ChildOutcome& outcome, double timeout_s);

// One run per (seed, clean or fault); on_seed(seed, runs of that seed) is called in this thread
// as each seed ends.
std::vector<SensitivityRun> run_sensitivity(
    const SensitivityOptions& options,
    const std::function<void(std::uint64_t, const std::vector<SensitivityRun>&)>& on_seed = {});

}  // namespace mlacheck::cli
