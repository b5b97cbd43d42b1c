#pragma once
// The oracle checking itself: the Eigen oracle against the plain-loop oracle on one case, in both
// rounding modes. The cases are a list of the plan (plan/oracle_self_check_problems.hpp), which
// `mlacheck run` runs before any device case.
#include "core/mla_problem.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

// Compares the two oracles to 1e-12 relative (both accumulate in at least double precision).
CaseResult run_oracle_self_check(const MlaDecodeProblem& p);

}  // namespace mlacheck
