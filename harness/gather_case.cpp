#include "harness/gather_case.hpp"

#include "core/gather_inputs.hpp"
#include "core/tolerance.hpp"
#include "harness/case_timing.hpp"
#include "harness/device_outcome.hpp"
#include "reference/kv_gather_reference.hpp"

namespace mlacheck {

namespace {

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

}  // namespace

CaseResult run_gather_case(const KvGatherProblem& p, Backend* backend, std::string_view unavailable_reason,
                           const FaultSet& faults) {
  const Stopwatch wall;
  CaseResult row;
  row.id = p.name;
  row.op = "kv_gather";
  row.repro = to_repro(p);
  row.faults = describe_faults(faults);
  if (backend == nullptr) {
    row.state = ResultState::skipped;
    row.reason = std::string(unavailable_reason);
    return row;
  }
  row.backend = backend->name();
  row.device = backend->device_name();
  if (auto why = backend->supports(p)) {
    row.state = ResultState::skipped;
    row.reason = *why;
    return row;
  }

  const KvGatherInputs inputs = make_inputs(p);
  const Stopwatch ref_clock;
  const KvGatherOutputs<float> expected = kv_gather_reference(p, inputs);
  row.reference_ms = ref_clock.ms();

  guard_device_run(row, [&] {
    const KvGatherRun run = backend->run(p, inputs, faults);
    row.path = run.diag.path;
    row.device_ms = run.diag.device_ms;
    const Tolerance tol = kv_gather_tolerance(p);
    row.tensors = {
        {"K", compare(widen(expected.k), run.out.k, tol, run.k_unwritten), tol},
        {"V", compare(widen(expected.v), run.out.v, tol, run.v_unwritten), tol},
    };
    const Verdict v = judge(row.tensors);
    row.state = v.state;
    row.reason = v.reason;
    apply_canaries(run.diag, row);
  });
  row.wall_ms = wall.ms();
  return row;
}

}  // namespace mlacheck
