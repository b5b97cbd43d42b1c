#pragma once
// Runs the sensitivity matrix (cli/sensitivity_matrix.hpp): for each seed, the mla_decode cases of
// the default `mlacheck run` plan of that seed, clean and with each precision fault. The rows run
// isolated (run/isolated_cases.hpp), `jobs` processes at once on the one GPU, each case's rows
// under every fault set in one process: its inputs and oracle are made once and its device half
// runs once per set (harness run_cases_under_fault_sets, oracles prefetched on threads), so a case
// costs one oracle however many faults are measured. A crash or a hang costs the row it happened
// in (ERRORED, naming how its process ended); a fresh process takes the rest. The caller must not
// have started the GPU runtime itself.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

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
  int jobs = 1;                   // processes at once, each with its own GPU context
  std::size_t lookahead = 2;      // cases whose oracle a child prepares ahead of the GPU
  int property_cases = 64;        // as `mlacheck run`'s --property-cases
  std::string scenarios_file;     // the scenario table of the plan ("" for none)
  double timeout_base_s = 120.0;  // the watchdog's base limit (a row's limit grows with its case's work)
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

// One run per (seed, clean or fault); on_seed(seed, runs of that seed) is called in this thread
// as each seed ends.
std::vector<SensitivityRun> run_sensitivity(
    const SensitivityOptions& options,
    const std::function<void(std::uint64_t, const std::vector<SensitivityRun>&)>& on_seed = {});

}  // namespace mlacheck::cli
