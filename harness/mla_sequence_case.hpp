#pragma once
// A decode sequence (core/mla_sequence.hpp) as one case: every step's inputs and exact oracle
// prepared on the host, then the steps run in order in one backend session (Backend::
// begin_sequence: the backend's buffers and plan live across them) and each judged as a one-step
// case. The row is the sequence's: FAILED or ERRORED from the first step that was, naming it and
// how many steps failed; PASSED with the tensors of the step that used most of its rms bound.
#include <cstdint>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/tolerance.hpp"
#include "device/backend.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

struct PreparedSequenceStep {
  MlaDecodeProblem problem;  // sequence_step(seq, k)
  MlaDecodeInputs inputs;    // q of the step, the pool as written so far, the step's block table
  std::vector<std::int64_t> written_slots;
  MlaDecodeOutputs<double> expected;  // the exact oracle (PRoundingPoint::kept_f32)
  MlaErrorScales scales;
};

// Every step's inputs (MlaSequenceInputs) and oracle; throws what they throw.
std::vector<PreparedSequenceStep> prepare_sequence_steps(const MlaDecodeProblem& seq);

// Whether `backend` takes every step of `seq` (supports() of each step) and has the memory for
// the sequence (lacks_memory(seq)); fills the row's backend and device as admit_case does, or
// makes it SKIPPED with the reason (the first refusing step named).
bool admit_sequence(CaseResult& row, const Backend* backend, std::string_view unavailable_reason,
                    const MlaDecodeProblem& seq);

// Runs the prepared steps in one session of `backend` and settles `row` (see the header comment).
void run_sequence_steps(CaseResult& row, const MlaDecodeProblem& seq, const std::vector<PreparedSequenceStep>& steps,
                        Backend& backend, const FaultSet& faults);

}  // namespace mlacheck
