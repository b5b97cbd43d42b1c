#include "harness/case_prefetch.hpp"

#include <deque>
#include <future>

#include "harness/gather_case.hpp"
#include "harness/mla_case.hpp"

namespace mlacheck {

namespace {

using Prepared = std::variant<PreparedMlaCase, PreparedGatherCase>;

Prepared prepare(const SweepCase& c, const Backend* backend, std::string_view reason, const FaultSet& faults) {
  if (const auto* mla = std::get_if<MlaDecodeProblem>(&c)) return prepare_mla_case(*mla, backend, reason, faults);
  return prepare_gather_case(std::get<KvGatherProblem>(c), backend, reason, faults);
}

CaseResult finish(Prepared prepared, Backend* backend, const FaultSet& faults) {
  if (auto* mla = std::get_if<PreparedMlaCase>(&prepared)) return finish_mla_case(*mla, backend, faults);
  return finish_gather_case(std::move(std::get<PreparedGatherCase>(prepared)), backend, faults);
}

}  // namespace

void run_cases(const std::vector<SweepCase>& cases, Backend* backend, std::string_view unavailable_reason,
               const FaultSet& faults, const PrefetchOptions& options,
               const std::function<void(std::size_t, CaseResult)>& on_row) {
  const std::string reason(unavailable_reason);
  if (options.lookahead == 0) {
    for (std::size_t i = 0; i < cases.size(); ++i) on_row(i, finish(prepare(cases[i], backend, reason, faults), backend, faults));
    return;
  }
  std::deque<std::future<Prepared>> ahead;
  std::size_t next = 0;
  const auto launch = [&] {
    const SweepCase* c = &cases[next++];
    ahead.push_back(std::async(std::launch::async, [c, backend, &reason, &faults] { return prepare(*c, backend, reason, faults); }));
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    while (next < cases.size() && ahead.size() < options.lookahead) launch();
    Prepared prepared = ahead.front().get();
    ahead.pop_front();
    // Refill before the device half, so the CPU works while the GPU does.
    if (next < cases.size()) launch();
    on_row(i, finish(std::move(prepared), backend, faults));
  }
}

}  // namespace mlacheck
