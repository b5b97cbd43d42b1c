#include "harness/mla_sequence_case.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "core/mla_sequence.hpp"
#include "core/mla_sequence_inputs.hpp"
#include "harness/device_outcome.hpp"
#include "harness/mla_judge.hpp"
#include "harness/sequence_row.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {

std::vector<PreparedSequenceStep> prepare_sequence_steps(const MlaDecodeProblem& seq) {
  MlaSequenceInputs host(seq);
  std::vector<PreparedSequenceStep> steps;
  steps.reserve(static_cast<std::size_t>(host.steps()));
  for (int k = 0; k < host.steps(); ++k) {
    host.advance();
    PreparedSequenceStep& s = steps.emplace_back();
    s.problem = host.problem();
    s.inputs = host.inputs();
    s.written_slots = host.written_slots();
    s.expected = mla_decode_reference(s.problem, s.inputs, PRoundingPoint::kept_f32, &s.scales);
  }
  return steps;
}

bool admit_sequence(CaseResult& row, const Backend* backend, std::string_view unavailable_reason,
                    const MlaDecodeProblem& seq) {
  // Step 0 stands for the sequence's shape (dtypes, heads, path: the same at every step).
  if (!admit_case(row, backend, unavailable_reason, sequence_step(seq, 0))) return false;
  for (int k = 1; k < seq.steps; ++k) {
    if (auto why = backend->supports(sequence_step(seq, k))) {
      set_skipped(row, SkipReason::unsupported, step_label(k, seq.steps) + ": " + *why);
      return false;
    }
  }
  if (auto why = backend->lacks_memory(seq)) {
    set_skipped(row, SkipReason::not_enough_memory, "not enough memory on this machine: " + *why);
    return false;
  }
  return true;
}

void run_sequence_steps(CaseResult& row, const MlaDecodeProblem& seq, const std::vector<PreparedSequenceStep>& steps,
                        Backend& backend, const FaultSet& faults) {
  const int n = static_cast<int>(steps.size());
  std::unique_ptr<MlaSequenceSession> session;
  guard_device_run(row, [&] { session = backend.begin_sequence(seq, faults); });
  if (session == nullptr) {
    if (row.state != ResultState::errored) {
      set_errored(row, ErrorKind::backend_exception, "the backend started no session for the sequence");
    }
    return;
  }
  const CaseResult before = row;
  SequenceRow sequence_row(before, n);
  for (int k = 0; k < n; ++k) {
    const PreparedSequenceStep& s = steps[static_cast<std::size_t>(k)];
    CaseResult step_row = before;
    guard_device_run(step_row, [&] {
      const MlaDecodeRun run = session->run_step(s.problem, s.inputs, s.written_slots);
      const std::vector<double> lse(run.out.lse.begin(), run.out.lse.end());
      judge_mla_outputs(step_row, s.problem, s.expected, s.scales, backend.p_rounding(),
                        {run.out.o, run.o_unwritten, run.lse_written, lse, run.lse_unwritten}, run.diag);
    });
    if (!sequence_row.add(k, step_row)) break;
  }
  row = sequence_row.finish();
}

}  // namespace mlacheck
