#pragma once
// One case in a child process of its own. Some faults lose the device (S2's overflowing partial
// rows, S3's qo_indptr sending stage 1 past kv_indices: a sticky CUDA error, a fatal ROCm memory
// fault), and nothing can run on a lost device in that process again; in a child the loss costs
// that case alone, as an ERRORED row. The caller must not have started the GPU runtime itself: a
// forked child inherits no usable context and makes its own. Rows come back through a pipe as
// report CSV (worker_protocol.hpp), every field intact.
#include <functional>
#include <string>

#include "device/faults.hpp"
#include "harness/case_prefetch.hpp"
#include "harness/case_result.hpp"

namespace mlacheck::cli {

// Runs `job` in a forked child and returns its row. When the child dies before reporting, the row
// is `stub` made ERRORED, naming how the child ended.
CaseResult run_in_child(const CaseResult& stub, const std::function<CaseResult()>& job);

// One case through its op's harness driver with `faults`, on GPU `device`, in a child, on the
// backend `backend_spec` names (device/backend_factory.hpp).
CaseResult run_case_in_child(const SweepCase& c, const FaultSet& faults, int device,
                             const std::string& backend_spec = "hip");

// GPU `device` as a child sees it through the backend `backend_spec` names: the backend's device
// name ("cpu" for a host plugin), or why it cannot be used. Probing in a child keeps this process
// free of the runtime, so that it can go on forking cases.
struct ProbedDevice {
  std::string name;                // empty when unavailable
  std::string unavailable_reason;  // for the SKIPPED rows
  bool backend_failed = false;     // the backend threw (a plugin's open() failed) or the child died
};
ProbedDevice probe_device(int device, const std::string& backend_spec = "hip");

}  // namespace mlacheck::cli
