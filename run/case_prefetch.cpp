#include "run/case_prefetch.hpp"

#include <algorithm>
#include <deque>
#include <future>
#include <thread>

#include "harness/device_outcome.hpp"
#include "harness/oracle_share.hpp"

namespace mlacheck {

void run_cases_under_fault_sets(const std::vector<CaseProblem>& cases, Backend* backend,
                                std::string_view unavailable_reason, std::span<const FaultSet> sets,
                                const PrefetchOptions& options,
                                const std::function<void(std::size_t, std::size_t, CaseResult)>& on_row) {
  if (sets.empty()) return;
  const std::string reason(unavailable_reason);
  const FaultSet& first = sets.front();
  const auto device_half = [&](std::size_t i, const PreparedCase& prepared) {
    for (std::size_t s = 0; s < sets.size(); ++s) {
      CaseResult row = finish_case(prepared, backend, sets[s]);
      row.faults = describe_faults(sets[s]);  // prepared under the first set
      on_row(i, s, std::move(row));
    }
  };
  if (options.lookahead == 0) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const PreparedCase prepared = prepare_case(cases[i], backend, reason, first);
      device_half(i, prepared);
    }
    return;
  }
  std::deque<std::future<PreparedCase>> ahead;
  std::vector<double> work(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) work[i] = case_work(cases[i]);
  std::size_t next = 0;
  const auto launch = [&] {
    // The case and those prepared beside it share the host's threads by their work, so a heavy
    // case among light ones, or a short queue (the run's last cases), still keeps every core busy.
    const int threads = oracle_threads_in_queue(work, next, options.lookahead);
    const CaseProblem* c = &cases[next++];
    ahead.push_back(std::async(std::launch::async, [c, backend, &reason, &first, threads] {
      return prepare_case(*c, backend, reason, first, threads);
    }));
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    while (next < cases.size() && ahead.size() < options.lookahead) launch();
    const PreparedCase prepared = ahead.front().get();
    ahead.pop_front();
    // Refill before the device half, so the CPU works while the GPU does.
    if (next < cases.size()) launch();
    device_half(i, prepared);
  }
}

void run_cases(const std::vector<CaseProblem>& cases, Backend* backend, std::string_view unavailable_reason,
               const FaultSet& faults, const PrefetchOptions& options,
               const std::function<void(std::size_t, CaseResult)>& on_row) {
  run_cases_under_fault_sets(cases, backend, unavailable_reason, std::span<const FaultSet>(&faults, 1), options,
                             [&](std::size_t i, std::size_t, CaseResult row) { on_row(i, std::move(row)); });
}

}  // namespace mlacheck
