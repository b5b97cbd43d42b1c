#include "harness/device_outcome.hpp"

namespace mlacheck {

std::string describe_faults(const FaultSet& faults) {
  std::string out;
  for (Fault f : kAllFaults) {
    if (faults.has(f)) out += (out.empty() ? "" : ",") + std::string(to_string(f));
  }
  return out;
}

void apply_canaries(const RunDiagnostics& diag, CaseResult& row) {
  if (diag.broken_canaries.empty()) {
    row.canaries = "ok";
    return;
  }
  std::string broken;
  for (const BrokenCanary& c : diag.broken_canaries) {
    broken += (broken.empty() ? "" : ", ") + c.buffer + "(" + c.side + ")";
  }
  row.canaries = "broken: " + broken;
  row.state = ResultState::failed;
  row.reason = "guard canary overwritten: " + broken + (row.reason.empty() ? "" : "; " + row.reason);
}

}  // namespace mlacheck
