#pragma once
// The generic driver for one mla_decode case: fill -> reference -> backend -> compare -> verdict.
// Written once; the CLI, the scenarios and the property tests all go through it.
#include <string_view>

#include "core/mla_problem.hpp"
#include "device/backend.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

// `backend` may be null: the case is then SKIPPED with `unavailable_reason`. Never throws for a
// device-side failure: a GPU fault, a kernel error or an exception from the backend becomes an
// ERRORED row with the message; an unsupported shape a SKIPPED row with supports()'s reason.
CaseResult run_mla_case(const MlaDecodeProblem& p, Backend* backend, std::string_view unavailable_reason,
                        const FaultSet& faults = {});

// Largest |q| and largest |dequantised cache value| a request reads, for the tolerance.
struct MlaInputMagnitudes {
  double max_abs_q = 0.0;
  double max_abs_kv = 0.0;
};
MlaInputMagnitudes input_magnitudes(const MlaDecodeProblem& p, const MlaDecodeInputs& in);

}  // namespace mlacheck
