#pragma once
// Runs a list of cases (any registered op, through the generic driver of op_registry.hpp) with the CPU half (inputs and the oracle) of the next ones computed on
// other threads while the GPU runs the current one, so the oracle does not bound throughput.
// Rows come back in list order, each as soon as it is final.
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "device/backend.hpp"
#include "harness/case_result.hpp"
#include "harness/op_registry.hpp"
#include "harness/oracle_share.hpp"

namespace mlacheck {

struct PrefetchOptions {
  // Cases prepared ahead of the device; 0 prepares on the calling thread (no threads). The cases
  // being prepared share the host's threads for their oracles by their work (oracle_share.hpp).
  std::size_t lookahead = default_lookahead();
};

// Calls on_row(index, row) for each case in order. The device half runs on the calling thread.
void run_cases(const std::vector<CaseProblem>& cases, Backend* backend, std::string_view unavailable_reason,
               const FaultSet& faults, const PrefetchOptions& options,
               const std::function<void(std::size_t, CaseResult)>& on_row);

// The same cases under several fault sets (the sensitivity matrix): each case's CPU half is
// prepared once and its device half runs once per set, in `sets` order, so N sets cost one oracle
// per case. Calls on_row(case index, set index, row); each row names its own set's faults.
void run_cases_under_fault_sets(const std::vector<CaseProblem>& cases, Backend* backend,
                                std::string_view unavailable_reason, std::span<const FaultSet> sets,
                                const PrefetchOptions& options,
                                const std::function<void(std::size_t, std::size_t, CaseResult)>& on_row);

}  // namespace mlacheck
