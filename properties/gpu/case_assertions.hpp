#pragma once
// What the GPU properties assert about a case, each failing it (RC_FAIL) with what a reader needs
// to act on: the state and reason, each compared tensor's errors against its tolerance rule, the
// canaries, and the command that replays the case alone. Call only inside a property.
#include <optional>
#include <string>
#include <vector>

#include "device/backend.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

// Multi-line explanation of a result row, printed with the counterexample.
std::string describe_row(const CaseResult& row);

// Discards a case the backend refused (`why` is supports()'s answer): SKIPPED is neither a pass nor
// a failure, and the registry counts it so that a bucket the backend never runs shows as skipped.
void discard_if_refused(const std::string& property, const std::vector<std::string>& buckets,
                        const std::optional<std::string>& why);

// The row PASSED, its guard canaries are intact and every output element was written (the verdict
// implies the last two; they are asserted on their own so that a change to judge() cannot hide
// them). A MISTRUSTED row, whose reference could not have shown a wrong output, is discarded.
void require_passed(const CaseResult& row);

// A device run's own diagnostics: no guard canary overwritten, no O or LSE element unwritten.
// `what` names the run in the failure ("persistent run", "rank 3").
void require_clean_run(const MlaDecodeRun& run, const std::string& what);

}  // namespace mlacheck
