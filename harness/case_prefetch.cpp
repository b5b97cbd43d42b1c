#include "harness/case_prefetch.hpp"

#include <algorithm>
#include <deque>
#include <future>
#include <thread>

#include "harness/device_outcome.hpp"
#include "harness/gather_case.hpp"
#include "harness/mla_case.hpp"
#include "reference/oracle_threads.hpp"

namespace mlacheck {

namespace {

using Prepared = std::variant<PreparedMlaCase, PreparedGatherCase>;

Prepared prepare(const SweepCase& c, const Backend* backend, std::string_view reason, const FaultSet& faults,
                 int oracle_threads) {
  if (const auto* mla = std::get_if<MlaDecodeProblem>(&c)) {
    return prepare_mla_case(*mla, backend, reason, faults, oracle_threads);
  }
  return prepare_gather_case(std::get<KvGatherProblem>(c), backend, reason, faults);
}

// A gather case's device half consumes its prepared state: a set before the last gets a copy.
CaseResult finish(Prepared& prepared, Backend* backend, const FaultSet& faults, bool last) {
  if (auto* mla = std::get_if<PreparedMlaCase>(&prepared)) return finish_mla_case(*mla, backend, faults);
  auto& gather = std::get<PreparedGatherCase>(prepared);
  return finish_gather_case(last ? std::move(gather) : PreparedGatherCase(gather), backend, faults);
}

}  // namespace

void run_cases_under_fault_sets(const std::vector<SweepCase>& cases, Backend* backend,
                                std::string_view unavailable_reason, std::span<const FaultSet> sets,
                                const PrefetchOptions& options,
                                const std::function<void(std::size_t, std::size_t, CaseResult)>& on_row) {
  if (sets.empty()) return;
  const std::string reason(unavailable_reason);
  const FaultSet& first = sets.front();
  const auto device_half = [&](std::size_t i, Prepared& prepared) {
    for (std::size_t s = 0; s < sets.size(); ++s) {
      CaseResult row = finish(prepared, backend, sets[s], s + 1 == sets.size());
      row.faults = describe_faults(sets[s]);  // prepared under the first set
      on_row(i, s, std::move(row));
    }
  };
  if (options.lookahead == 0) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      Prepared prepared = prepare(cases[i], backend, reason, first, 1);
      device_half(i, prepared);
    }
    return;
  }
  std::deque<std::future<Prepared>> ahead;
  std::size_t next = 0;
  const auto launch = [&] {
    const SweepCase* c = &cases[next++];
    // The cases prepared at once share the host's threads for their oracles, so a short queue (the
    // run's last cases, a plan of a few large ones) still keeps every core busy.
    const int threads = oracle_threads_for_queue(std::min(options.lookahead, cases.size() - next + 1),
                                                 std::thread::hardware_concurrency());
    ahead.push_back(std::async(std::launch::async, [c, backend, &reason, &first, threads] {
      return prepare(*c, backend, reason, first, threads);
    }));
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    while (next < cases.size() && ahead.size() < options.lookahead) launch();
    Prepared prepared = ahead.front().get();
    ahead.pop_front();
    // Refill before the device half, so the CPU works while the GPU does.
    if (next < cases.size()) launch();
    device_half(i, prepared);
  }
}

void run_cases(const std::vector<SweepCase>& cases, Backend* backend, std::string_view unavailable_reason,
               const FaultSet& faults, const PrefetchOptions& options,
               const std::function<void(std::size_t, CaseResult)>& on_row) {
  run_cases_under_fault_sets(cases, backend, unavailable_reason, std::span<const FaultSet>(&faults, 1), options,
                             [&](std::size_t i, std::size_t, CaseResult row) { on_row(i, std::move(row)); });
}

}  // namespace mlacheck
