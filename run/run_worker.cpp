#include "run/run_worker.hpp"

#include "core/mla_problem.hpp"
#include "device/backend_factory.hpp"
#include "run/case_prefetch.hpp"
#include "harness/op_registry.hpp"
#include "harness/oracle_self_check.hpp"

namespace mlacheck {

CaseResult run_case_stub(const RunCase& c) {
  CaseResult row;
  row.id = c.id;
  row.op = std::string(op_of_repro(c.repro));
  row.repro = c.repro;
  return row;
}

void run_worker_cases(const RunWorkerOptions& options, const std::vector<RunCase>& plan,
                      std::span<const std::size_t> todo, const RowSender& send) {
  // Oracle self-checks need no device; device cases share one backend.
  std::vector<std::size_t> device_cases;
  for (std::size_t i : todo) {
    const RunCase& c = plan[i];
    if (c.kind == RunCase::Kind::device) {
      device_cases.push_back(i);
      continue;
    }
    send(i, run_oracle_self_check(parse_mla_decode(c.repro)));
  }
  if (device_cases.empty()) return;

  BackendOrReason backend;
  try {
    backend = make_backend(options.backend, options.device);
  } catch (const std::exception& e) {
    // The parent checked the library; what is left is a plugin whose open() fails. Its cases
    // come back SKIPPED with why and no backend named, which the settle step makes ERRORED where
    // a backend was expected to start.
    backend = {nullptr, e.what()};
  }
  // Rows go back as the driver left them: the parent settles every row, a lost case's included
  // (plan/case_settle.hpp).
  std::vector<CaseProblem> cases;
  for (std::size_t i : device_cases) cases.push_back(parse_case(plan[i].repro));
  // A lost device ends the share after its row: the remaining rows would all be errors of the
  // dead context, not of their cases. Throwing out of the callback stops run_cases.
  struct DeviceLost {};
  try {
    run_cases(cases, backend.backend.get(), backend.reason, {}, PrefetchOptions{options.lookahead},
              [&](std::size_t k, CaseResult row) {
                send(device_cases[k], row);
                if (row.error_kind == ErrorKind::device_lost) throw DeviceLost{};
              });
  } catch (const DeviceLost&) {
  }
}

}  // namespace mlacheck
