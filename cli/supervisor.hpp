#pragma once
// Runs cases in worker processes (`mlacheck worker`), one per GPU, so that a GPU fault (sticky on
// CUDA, fatal to the process on ROCm), an abort or a hang in one case costs that case alone: it
// becomes an ERRORED row with the reason, a fresh worker takes the remaining cases, and the run
// goes on. A watchdog kills a worker whose current case outlives its limit.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "plan/run_plan.hpp"
#include "harness/case_result.hpp"

namespace mlacheck::cli {

struct SupervisorOptions {
  std::string executable;    // this program, to start workers from
  std::vector<int> devices;  // one worker per device; empty: one worker, device 0
  std::size_t lookahead = 4;
  std::string backend = "hip";  // the workers' --backend
};

// Calls on_row(case index, row) on this thread as rows arrive: in order within one device's
// share (cases are dealt round-robin), interleaved across devices.
void supervise(const std::vector<RunCase>& cases, const SupervisorOptions& options,
               const std::function<void(std::size_t, CaseResult)>& on_row);

// The row of a case its worker never reported: ERRORED, with what happened to the worker.
CaseResult lost_case_row(const RunCase& c, const std::string& reason);

// "signal 6 (Aborted)" or "exit status 1", from a waitpid status.
std::string describe_exit(int wait_status);

}  // namespace mlacheck::cli
