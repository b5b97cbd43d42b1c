#pragma once
// One case in a child process of its own. Some faults lose the device (S2's overflowing partial
// rows, S3's qo_indptr sending stage 1 past kv_indices: a sticky CUDA error, a fatal ROCm memory
// fault), and nothing can run on a lost device in that process again; in a child the loss costs
// that case alone, as an ERRORED row; a hang costs it too (a watchdog kills the child). The
// caller must not have started the GPU runtime itself: a forked child inherits no usable context
// and makes its own. Rows come back through a pipe as report CSV (worker_protocol.hpp), every
// field intact.
#include <functional>
#include <string>

#include "device/faults.hpp"
#include "harness/op_registry.hpp"
#include "harness/case_result.hpp"

namespace mlacheck::cli {

// Runs `job` in a forked child (forked_child.hpp) and returns its row. When the child dies before
// reporting, or is still running after `timeout_s` (the watchdog kills it), the row is `stub` made
// ERRORED, naming how the child ended (harness/lost_case.hpp wording).
CaseResult run_in_child(const CaseResult& stub, const std::function<CaseResult()>& job, double timeout_s);

// One case through its op's harness driver with `faults`, on GPU `device`, in a child under a
// watchdog of `timeout_s` (plan/run_plan.hpp's case_timeout_s, as `mlacheck run` uses), on the
// backend `backend_spec` names (device/backend_factory.hpp).
CaseResult run_case_in_child(const CaseProblem& c, const FaultSet& faults, int device, double timeout_s,
                             const std::string& backend_spec = "hip");

}  // namespace mlacheck::cli
