#include "harness/refusal_policy.hpp"

#include <string>

namespace mlacheck {

std::string_view to_string(CaseOrigin o) { return o == CaseOrigin::curated ? "curated" : "generated"; }

std::optional<CaseOrigin> parse_case_origin(std::string_view text) {
  if (text == "curated") return CaseOrigin::curated;
  if (text == "generated") return CaseOrigin::generated;
  return std::nullopt;
}

void settle_unrun_case(CaseResult& row, CaseOrigin origin, bool backend_present, bool gpus_present) {
  if (row.state != ResultState::skipped || row.skipped_for_memory) return;
  if (backend_present) {
    if (origin == CaseOrigin::generated) return;
    row.state = ResultState::failed;
    row.reason = "the backend refuses a curated case (only generated cases may be skipped): " + row.reason;
    return;
  }
  if (gpus_present) {
    row.state = ResultState::errored;
    row.reason = "the backend could not start on a GPU this machine has: " + row.reason;
  }
}

}  // namespace mlacheck
