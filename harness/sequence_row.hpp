#pragma once
// The row of a decode sequence from the rows of its steps, each judged as a one-step case: FAILED,
// ERRORED or SKIPPED from the first step that was not PASSED, naming it ("step k of n: ...") and
// how many steps failed; PASSED with the tensors of the step that used most of its rms bound.
// One rule for every driver of sequences: the C++ session (harness/mla_sequence_case.hpp) and the
// harness C API, whose steps a Python backend runs (api/sequence_api.cpp).
#include <optional>
#include <set>
#include <string>

#include "harness/case_result.hpp"

namespace mlacheck {

// "step k of n": how a row names a step of a sequence.
std::string step_label(int step, int steps);

class SequenceRow {
 public:
  // `before`: the sequence's row before any step ran (id, repro, backend, oracle time).
  SequenceRow(const CaseResult& before, int steps);

  // Adds the row of step `step` (steps are added in order, 0 first). Returns false when the
  // sequence cannot go on: an ERRORED step (a lost device or a raised exception leaves the session
  // unusable) or a SKIPPED one (the backend refused the step, or the machine lacks its memory).
  bool add(int step, const CaseResult& step_row);

  // The sequence's row. Device times are summed, paths joined with '+'; wall and oracle time are
  // `before`'s. Throws std::logic_error when no step was added, or when fewer than `steps` were
  // and none stopped the sequence.
  CaseResult finish() const;

 private:
  CaseResult before_;
  int steps_;
  int added_ = 0;
  bool stopped_ = false;
  std::optional<CaseResult> first_bad_;
  CaseResult worst_passed_;
  double worst_used_ = -1.0;
  int failed_ = 0;
  double device_ms_ = 0.0;
  std::set<std::string> paths_;
};

}  // namespace mlacheck
