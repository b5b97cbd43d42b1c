#include "cli/isolated_case.hpp"

#include <string>
#include <vector>

#include "cli/forked_child.hpp"
#include "cli/worker_protocol.hpp"
#include "device/backend_factory.hpp"
#include "harness/device_outcome.hpp"
#include "harness/lost_case.hpp"
#include "harness/op_registry.hpp"

namespace mlacheck::cli {

CaseResult run_in_child(const CaseResult& stub, const std::function<CaseResult()>& job, double timeout_s) {
  const ChildOutcome outcome = run_forked(
      [&] {
        CaseResult row = stub;
        try {
          row = job();
        } catch (const std::exception& e) {
          row.state = ResultState::errored;
          row.reason = e.what();
        }
        return encode_row_frame(0, row);
      },
      timeout_s);
  if (outcome.reported) {
    try {
      std::string buffer = outcome.output;
      std::vector<RowFrame> frames = take_row_frames(buffer);
      if (frames.size() == 1 && buffer.empty()) return std::move(frames.front().row);
    } catch (const std::exception&) {
      // a garbled row: reported below as the child's failure
    }
  }
  CaseResult row = stub;
  row.state = ResultState::errored;
  row.reason = outcome.timed_out ? watchdog_reason(timeout_s, "the case's process")
                                 : process_died_reason("the case's process", outcome.reported ? "a garbled row" : outcome.ended);
  return row;
}

CaseResult run_case_in_child(const CaseProblem& c, const FaultSet& faults, int device, double timeout_s,
                             const std::string& backend_spec) {
  CaseResult stub;
  stub.id = case_name(c);
  stub.op = std::string(op_name(c));
  stub.repro = to_repro(c);
  stub.faults = describe_faults(faults);
  const auto job = [&] {
    BackendOrReason backend = make_backend(backend_spec, device);
    return run_case(c, backend.backend.get(), backend.reason, faults);
  };
  return run_in_child(stub, job, timeout_s);
}

}  // namespace mlacheck::cli
