#pragma once
// The generic driver for one kv_gather case: fill -> host twin -> backend -> bitwise compare.
#include <string_view>

#include "core/gather_problem.hpp"
#include "device/backend.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

// Same contract as run_mla_case: never throws for device-side failures.
CaseResult run_gather_case(const KvGatherProblem& p, Backend* backend, std::string_view unavailable_reason,
                           const FaultSet& faults = {});

}  // namespace mlacheck
