#pragma once
// The parts of a case verdict that come from the device run rather than the numbers: broken
// guard canaries and the fault list, shared by the mla_decode and kv_gather drivers.
#include <string>
#include <vector>

#include "device/backend.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

std::string describe_faults(const FaultSet& faults);
// Fills row.canaries ("ok", or "n/a" when nothing was guarded) and, if any canary broke, makes
// the row FAILED naming the buffers (a write outside an allocation is wrong whatever the numbers
// say).
void apply_canaries(const RunDiagnostics& diag, CaseResult& row);
// The verdict of a device run: its diagnostics, the compared tensors, judge() and the canaries.
void settle_row(CaseResult& row, const RunDiagnostics& diag, std::vector<ComparedTensor> tensors);
// Fills the row's backend and device; or, when no backend can run `p` (none present, a shape
// supports() refuses, or memory lacks_memory() says the machine does not have now), makes the row
// SKIPPED with the reason. Returns whether the case can run.
template <class Problem>
bool admit_case(CaseResult& row, const Backend* backend, std::string_view unavailable_reason, const Problem& p);
// Runs `body` and turns any exception into an ERRORED row (GpuError, invalid arguments, others).
template <class Body>
void guard_device_run(CaseResult& row, Body&& body);

}  // namespace mlacheck

#include "harness/device_outcome_impl.hpp"
