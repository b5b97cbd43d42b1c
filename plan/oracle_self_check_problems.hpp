#pragma once
// The cases of the oracle checking itself (harness/oracle_self_check.hpp runs each): `mlacheck run`
// runs these before any device case, so a broken oracle can never silently bless a broken kernel.
#include <cstdint>
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

// Model shapes (DeepSeek-V3 at TP8, Kimi-K2.5 at TP8, DeepSeek-V2-Lite at TP2, Mistral-Small-4,
// a 12-head rank), multi-token and non-power-of-two q_len, block sizes 1/7/16/64, small kv_len
// edges, and the two fill profiles that stress precision (large logits with a sink, fp8 codes at
// their extremes): small enough for the slow plain-loop oracle.
std::vector<MlaDecodeProblem> oracle_self_check_problems(std::uint64_t seed);

}  // namespace mlacheck
