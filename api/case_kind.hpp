#pragma once
// What a plan's case is to a caller of the C API, and the oracle of a case on first need.
#include "mlacheck/harness_api.h"
#include "plan/run_plan.hpp"

struct mlacheck_case;

namespace mlacheck::api {

inline constexpr const char* kKvGatherUnsupported =
    "kv_gather cases test mlacheck's built-in KV-cache gather kernels; a backend under test "
    "(backend ABI or Python) runs mla_decode only";

mlacheck_case_kind case_kind(const RunCase& c);

// Makes the case's inputs (if not yet made) and the oracle's outputs, once. When the oracle
// refuses the problem the case's row is ERRORED with the reason and this returns false.
// oracle_threads: the threads the oracle may use (harness/oracle_share.hpp).
bool ensure_oracle(mlacheck_case* c, int oracle_threads = 1);

}  // namespace mlacheck::api
