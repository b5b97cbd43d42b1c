#include "run/case_prefetch.hpp"

#include "harness/device_outcome.hpp"
#include "run/prefetch_queue.hpp"

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
  std::vector<double> work(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) work[i] = case_work(cases[i]);
  // As many threads as cases ahead, so each case in the lookahead is prepared at once; the device
  // half runs on this thread while they work.
  PrefetchQueue<PreparedCase> queue(std::move(work), options.lookahead, options.lookahead,
                                    [&](std::size_t i, int threads) {
                                      return prepare_case(cases[i], backend, reason, first, threads);
                                    });
  for (std::size_t i = 0; i < cases.size(); ++i) device_half(i, queue.next());
}

void run_cases(const std::vector<CaseProblem>& cases, Backend* backend, std::string_view unavailable_reason,
               const FaultSet& faults, const PrefetchOptions& options,
               const std::function<void(std::size_t, CaseResult)>& on_row) {
  run_cases_under_fault_sets(cases, backend, unavailable_reason, std::span<const FaultSet>(&faults, 1), options,
                             [&](std::size_t i, std::size_t, CaseResult row) { on_row(i, std::move(row)); });
}

}  // namespace mlacheck
