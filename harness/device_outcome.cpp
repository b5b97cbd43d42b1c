#include "harness/device_outcome.hpp"

namespace mlacheck {

std::string describe_faults(const FaultSet& faults) {
  std::string out;
  const auto add = [&](Fault f) {
    if (faults.has(f)) out += (out.empty() ? "" : ",") + std::string(to_string(f));
  };
  for (Fault f : kAllFaults) add(f);
  for (Fault f : kPrecisionFaults) add(f);
  return out;
}

void apply_canaries(const RunDiagnostics& diag, CaseResult& row) {
  if (diag.broken_canaries.empty()) {
    row.canaries = diag.guarded ? "ok" : "n/a";
    return;
  }
  std::string broken;
  for (const BrokenCanary& c : diag.broken_canaries) {
    broken += (broken.empty() ? "" : ", ") + c.buffer + "(" + c.side + ")";
  }
  row.canaries = "broken: " + broken;
  row.state = ResultState::failed;
  row.fail_kind = FailKind::wrong_output;
  row.reason = "guard canary overwritten: " + broken + (row.reason.empty() ? "" : "; " + row.reason);
}

void settle_row(CaseResult& row, const RunDiagnostics& diag, std::vector<ComparedTensor> tensors) {
  row.path = diag.path;
  row.num_splits = diag.num_splits;
  row.device_ms = diag.device_ms;
  row.tensors = std::move(tensors);
  const Verdict v = judge(row.tensors);
  row.state = v.state;
  row.fail_kind = v.state == ResultState::failed ? FailKind::wrong_output : FailKind::none;
  row.reason = v.reason;
  apply_canaries(diag, row);
}

}  // namespace mlacheck
