#pragma once
// The oracle checking itself: the Eigen oracle against the plain-loop oracle on model shapes,
// in both rounding modes. `mlacheck run` runs these before any device case, so a broken oracle
// can never silently bless a broken kernel.
#include <cstdint>
#include <vector>

#include "core/mla_problem.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

// Model shapes (DeepSeek-V3 at TP8, Kimi-K2.5 at TP8, DeepSeek-V2-Lite at TP2, Mistral-Small-4,
// a 12-head rank), multi-token and non-power-of-two q_len, block sizes 1/7/16/64, small kv_len
// edges, and the two fill profiles that stress precision (large logits with a sink, fp8 codes at
// their extremes): small enough for the slow plain-loop oracle.
std::vector<MlaDecodeProblem> oracle_self_check_problems(std::uint64_t seed);

// Compares the two oracles to 1e-12 relative (both accumulate in at least double precision).
CaseResult run_oracle_self_check(const MlaDecodeProblem& p);

}  // namespace mlacheck
