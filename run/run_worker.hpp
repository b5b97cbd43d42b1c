#pragma once
// The cases of one `mlacheck run` process (run/isolated_cases.hpp: one process per GPU): the
// oracle self-checks, then the device cases through the harness with the oracle of the next cases
// prepared on other threads, each row sent as soon as the driver leaves it (the parent settles it:
// plan/case_settle.hpp). A case whose GPU context is lost ends the share after its row, so the next
// case starts in a fresh process.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "run/isolated_cases.hpp"
#include "harness/oracle_share.hpp"
#include "plan/run_plan.hpp"

namespace mlacheck {

struct RunWorkerOptions {
  int device = 0;
  std::size_t lookahead = default_lookahead();
  std::string backend = "hip";  // make_backend's spec: "hip" or a plugin's path
};

// The row a plan's case gets when its process ends without it (id, op, repro; the isolation makes
// it ERRORED).
CaseResult run_case_stub(const RunCase& c);

// Runs plan[i] for each i of `todo`, in order, sending each row with its index i.
void run_worker_cases(const RunWorkerOptions& options, const std::vector<RunCase>& plan,
                      std::span<const std::size_t> todo, const RowSender& send);

}  // namespace mlacheck
