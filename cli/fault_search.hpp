#pragma once
// Hunts one fault with the random properties: rapidcheck draws problems from the test-support
// generators (generators/), runs each through the harness driver with the fault on, and
// calls the fault caught when a case FAILS or ERRORS with it and PASSES without it; rapidcheck
// then shrinks that case to a small counterexample.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device/faults.hpp"
#include "generators/gather_problem_gen.hpp"
#include "generators/mla_problem_gen.hpp"
#include "harness/op_registry.hpp"
#include "harness/case_result.hpp"

namespace mlacheck::cli {

// Runs one case with a set of faults (in a child process: a fault may lose the device).
using CaseRunner = std::function<CaseResult(const CaseProblem&, const FaultSet&)>;

struct FaultSearchOptions {
  std::uint64_t seed = 1;
  int max_cases = 100;  // device cases (not counting discards) before the fault counts as surviving
  MlaGenLimits mla_limits;
  GatherGenLimits gather_limits;
};

struct FaultSearchResult {
  Fault fault{};
  bool caught = false;
  int cases = 0;    // device cases until the first catch, or all of them when the fault survived
  int shrinks = 0;  // accepted shrink steps from the first catch to the counterexample
  std::string caught_as;  // the counterexample's state and reason with the fault on
  std::string repro;      // the shrunk counterexample, for `mlacheck run --case`
  // Generated cases the correct pipeline FAILED or ERRORED: real bugs, not the fault's doing.
  std::vector<std::string> clean_failures;
  std::string error;  // rapidcheck gave up (too many unsupported cases) or failed itself
};

// The mla_decode limits a fault's hunt draws from: `base`, narrowed where the fault can show only
// on some problems. plan-stale-at-replay (UPSTREAM R5) replays the persistent plan of a decode
// sequence's first step at the later ones, so its hunt draws only sequences (whose lengths change
// from step to step: every request grows, and requests join and leave) on the persistent path.
MlaGenLimits fault_mla_limits(Fault fault, MlaGenLimits base);

FaultSearchResult search_fault(Fault fault, const CaseRunner& run, const FaultSearchOptions& options);

}  // namespace mlacheck::cli
