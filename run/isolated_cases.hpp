#pragma once
// The one way mlacheck runs cases in processes of their own (`run`, `scenarios`, `mutate`,
// `scenarios --sensitivity`). A GPU fault (sticky on CUDA, fatal to the process on ROCm), an abort
// or a hang in one case costs that case alone: it becomes an ERRORED row naming how its process
// ended (harness/lost_case.hpp wording: the signal, the exit status, or the watchdog's limit), a
// fresh process takes the cases that remain, and every row already sent is kept.
//
// Each process is a forked child (run/child_process.hpp) that runs its share of the cases and
// sends each row as soon as it is final (run/row_frames.hpp); a watchdog kills a process whose
// current case outlives that case's limit (plan/run_plan.hpp's case_timeout_s). The caller must
// not have started the GPU runtime itself.
//
// For the tests of every command, two variables break a case's process on purpose when it is
// about to send the row of the case with that id: MLACHECK_TEST_CRASH_CASE aborts the process
// (as a GPU memory fault on ROCm does), MLACHECK_TEST_HANG_CASE never returns (a hung kernel).
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "device/faults.hpp"
#include "run/case_prefetch.hpp"
#include "harness/case_result.hpp"
#include "harness/op_registry.hpp"

namespace mlacheck {

struct IsolatedCase {
  CaseResult stub;         // id, op, repro and faults: the row the case gets when it is lost
  double timeout_s = 0.0;  // the watchdog's limit for this case
};

// Sends one row to the parent: `index` is the case's index in the list run_isolated was given.
using RowSender = std::function<void(std::size_t index, const CaseResult& row)>;
// What a process runs, in the child: the cases `todo` (indices, in order) on process `slot`
// (0 .. processes-1), each row through `send`. A job may return before its last case (its device
// was lost after a row); a fresh process then takes the rest.
using IsolatedJob = std::function<void(std::size_t slot, std::span<const std::size_t> todo, const RowSender& send)>;

struct IsolationOptions {
  std::size_t processes = 1;  // processes at once; each keeps its own share of the cases
  // Consecutive cases dealt to one process together (round-robin by groups): the rows of one
  // problem under several fault sets share one oracle when they stay in one process.
  std::size_t group = 1;
  std::string process_name = "the case's process";  // in lost rows: "<name> died while ..."
};

// Runs every case; on_row(index, row) is called on this thread as rows arrive: in order within
// one process's share, interleaved across processes. Every case gets exactly one row, whose id
// is its stub's.
void run_isolated(const std::vector<IsolatedCase>& cases, const IsolatedJob& job, const IsolationOptions& options,
                  const std::function<void(std::size_t, CaseResult)>& on_row);

// One case, its row made by `job` in a process of its own; an exception from the job is the
// case's ERRORED row with the message.
CaseResult run_isolated_case(const IsolatedCase& c, const std::function<CaseResult()>& job);

// One case through the harness driver (run/case_prefetch.hpp) with `faults`, on GPU `device`,
// on the backend `backend_spec` names (device/backend_factory.hpp), in a process of its own under
// a watchdog of `timeout_s`.
CaseResult run_case_isolated(const CaseProblem& c, const FaultSet& faults, int device, double timeout_s,
                             const std::string& backend_spec = "hip");

// The row of a case whose process ended without it: `stub` made ERRORED with `reason`.
CaseResult lost_case_row(const CaseResult& stub, ErrorKind kind, const std::string& reason);

}  // namespace mlacheck
