#pragma once
// Issue 28 item 3: shrinking a failing mla_decode case, for any backend. The loop is written once
// over a callback that runs a problem on a backend and returns its row: the CLI (`mlacheck
// shrink`, each case in a child process), the harness C API (a Python backend) and the pytest
// plugin all shrink through it.
//
// From the failing case, the loop runs the candidates of core/mla_shrink_candidates.hpp in their
// fixed order and moves to the first one that fails the same way (`failure_class`), then starts
// over from there; it stops when no candidate fails the same way (a local minimum), or at the
// bounds. The last case it moved to is run once more and must still fail the same way; if it does
// not (a backend whose failures come and go), the steps before it are re-run from the last back
// and the first that fails again is the result, the original at worst. So the result never
// passes. A case whose original does not fail is reported as such and kept.
//
// Deterministic: the same original, judged the same, gives the same steps and result, unless the
// time bound (which depends on the machine) stops it first; `stop` says which bound did.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/mla_problem.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

// How a row fails, for "the candidate still fails the same way": "" when it does not fail
// (PASSED, SKIPPED, MISTRUSTED, KNOWN_BUG). FAILED rows: the first tensor out of its tolerance
// (judge()'s order: O, then LSE) and its first kind of error in the order never written, NaN
// written, Inf, values ("FAILED O values", "FAILED LSE never written"); a row with every tensor
// within its tolerance and a broken guard "FAILED canaries"; otherwise (a refusal the policy
// fails) "FAILED <fail kind>: " and the reason. ERRORED rows: "ERRORED <error kind>: " and the
// reason with every run of digits written "#", so the same error at another size (an index, a
// shape, a line) is the same, and a crash is never the same as an exception worded alike. The
// reason is compared whole for sameness, never searched for a kind.
std::string failure_class(const CaseResult& row);

// Runs a problem on the backend being shrunk for and returns its row (never throws for a backend
// failure: that is an ERRORED row).
using ShrinkJudge = std::function<CaseResult(const MlaDecodeProblem&)>;

struct ShrinkOptions {
  int max_steps = 200;       // candidates run at most (the original and the final re-runs not counted)
  double max_seconds = 600;  // wall time after which no further candidate starts
};

struct ShrinkStep {
  std::string change;  // what this step changed (ShrinkCandidate::change)
  std::string repro;   // the case after it
};

enum class ShrinkStop : std::uint8_t {
  not_failing,  // the original does not fail: nothing to shrink, it is kept
  minimal,      // no candidate of the result fails the same way
  max_steps,    // stopped at max_steps candidates run
  max_seconds,  // stopped at max_seconds
};
std::string_view to_string(ShrinkStop s);  // "not failing", "minimal", "max steps", "max seconds"

struct ShrinkResult {
  std::string original_repro;
  CaseResult original_row;        // the original's run
  std::string failure;            // failure_class of the original ("" when it does not fail)
  std::string shrunk_repro;       // the result: the original when it does not fail or nothing smaller fails
  CaseResult shrunk_row;          // the result's final run (fails as `failure` unless stop is not_failing)
  std::vector<ShrinkStep> steps;  // the steps to the result, in order
  int candidates_run = 0;
  int reruns_not_failing = 0;  // accepted steps whose final re-run did not fail the same way
  ShrinkStop stop = ShrinkStop::minimal;
  double seconds = 0.0;
};

ShrinkResult shrink_mla_case(const MlaDecodeProblem& original, const ShrinkJudge& judge, const ShrinkOptions& options);

// The case a repro string names, read through the op registry, when it is one shrinking takes (an
// mla_decode case: what a backend under test runs). Throws std::invalid_argument otherwise, naming
// the op, or with what the parse threw.
MlaDecodeProblem shrinkable_case(std::string_view repro);

}  // namespace mlacheck
