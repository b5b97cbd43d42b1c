#include "cli/run_worker.hpp"

#include "cli/backend_description.hpp"
#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "device/backend_factory.hpp"
#include "device/platform/device_info.hpp"
#include "harness/case_prefetch.hpp"
#include "harness/oracle_self_check.hpp"
#include "harness/refusal_policy.hpp"

namespace mlacheck::cli {

namespace {

SweepCase to_sweep_case(const std::string& repro) {
  if (repro.rfind("kv_gather:", 0) == 0) return parse_kv_gather(repro);
  return parse_mla_decode(repro);
}

}  // namespace

CaseResult run_case_stub(const RunCase& c) {
  CaseResult row;
  row.id = c.id;
  row.op = c.repro.substr(0, c.repro.find(':'));
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
  bool backend_failed = false;
  try {
    backend = make_backend(options.backend, options.device);
  } catch (const std::exception& e) {
    // The parent checked the library; what is left is a plugin whose open() fails. Its cases
    // are ERRORED with why (not SKIPPED: a backend that cannot start is broken, not absent).
    backend = {nullptr, e.what()};
    backend_failed = true;
  }
  // Where the backend should have started: a GPU for ours and device plugins; anywhere for a host
  // plugin. A backend missing there is broken (ERRORED), elsewhere absent (SKIPPED).
  const bool plugin = is_plugin_spec(options.backend);
  const bool backend_expected = backend_failed || runs_on_host(options.backend) || probe_devices().count > 0;
  std::vector<SweepCase> cases;
  for (std::size_t i : device_cases) cases.push_back(to_sweep_case(plan[i].repro));
  // A lost device ends the share after its row: the remaining rows would all be errors of the
  // dead context, not of their cases. Throwing out of the callback stops run_cases.
  struct DeviceLost {};
  try {
    run_cases(cases, backend.backend.get(), backend.reason, {}, PrefetchOptions{options.lookahead},
              [&](std::size_t k, CaseResult row) {
                // A plugin runs mla_decode only (backend_abi.h): its kv_gather rows stay SKIPPED.
                if (!(plugin && row.op == "kv_gather")) {
                  settle_unrun_case(row, plan[device_cases[k]].origin, backend.backend != nullptr, backend_expected);
                }
                send(device_cases[k], row);
                if (row.device_lost) throw DeviceLost{};
              });
  } catch (const DeviceLost&) {
  }
}

}  // namespace mlacheck::cli
