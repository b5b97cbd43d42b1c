#pragma once
// The generic driver for one kv_gather case: fill -> host twin -> backend -> bitwise compare.
#include <string_view>

#include "core/gather_inputs.hpp"
#include "core/gather_problem.hpp"
#include "device/backend.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

// Same contract as run_mla_case: never throws for device-side failures.
CaseResult run_gather_case(const KvGatherProblem& p, Backend* backend, std::string_view unavailable_reason,
                           const FaultSet& faults = {});

// The two halves, as for mla_decode (mla_case.hpp).
struct PreparedGatherCase {
  KvGatherProblem problem;
  CaseResult row;
  KvGatherInputs inputs;
  KvGatherOutputs<float> expected;
  bool ready_for_device = false;
};
PreparedGatherCase prepare_gather_case(const KvGatherProblem& p, const Backend* backend,
                                       std::string_view unavailable_reason, const FaultSet& faults = {});
CaseResult finish_gather_case(PreparedGatherCase prepared, Backend* backend, const FaultSet& faults = {});

}  // namespace mlacheck
