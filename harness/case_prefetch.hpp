#pragma once
// Runs a list of cases with the CPU half (inputs and the oracle) of the next ones computed on
// other threads while the GPU runs the current one, so the oracle does not bound throughput.
// Rows come back in list order, each as soon as it is final.
#include <cstddef>
#include <functional>
#include <variant>
#include <vector>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "device/backend.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

using SweepCase = std::variant<MlaDecodeProblem, KvGatherProblem>;

struct PrefetchOptions {
  // Cases prepared ahead of the device; 0 prepares on the calling thread (no threads).
  std::size_t lookahead = 4;
};

// Calls on_row(index, row) for each case in order. The device half runs on the calling thread.
void run_cases(const std::vector<SweepCase>& cases, Backend* backend, std::string_view unavailable_reason,
               const FaultSet& faults, const PrefetchOptions& options,
               const std::function<void(std::size_t, CaseResult)>& on_row);

}  // namespace mlacheck
