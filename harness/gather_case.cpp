#include "harness/gather_case.hpp"

#include "core/element_names.hpp"
#include "core/gather_inputs.hpp"
#include "core/tolerance.hpp"
#include "harness/case_timing.hpp"
#include "harness/device_outcome.hpp"
#include "reference/kv_gather_reference.hpp"

namespace mlacheck {

namespace {

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

}  // namespace

PreparedGatherCase prepare_gather_case(const KvGatherProblem& p, const Backend* backend,
                                       std::string_view unavailable_reason, const FaultSet& faults) {
  const Stopwatch wall;
  PreparedGatherCase out;
  out.problem = p;
  out.row.id = p.name;
  out.row.op = "kv_gather";
  out.row.repro = to_repro(p);
  out.row.faults = describe_faults(faults);
  if (!admit_case(out.row, backend, unavailable_reason, p)) return out;
  try {
    out.inputs = make_inputs(p);
    const Stopwatch ref_clock;
    out.expected = kv_gather_reference(p, out.inputs);
    out.row.reference_ms = ref_clock.ms();
    out.ready_for_device = true;
  } catch (const std::exception& e) {
    set_errored(out.row, ErrorKind::harness_error, std::string("reference: ") + e.what());
  }
  out.row.wall_ms = wall.ms();
  return out;
}

CaseResult finish_gather_case(const PreparedGatherCase& prepared, Backend* backend, const FaultSet& faults) {
  CaseResult row = prepared.row;
  if (!prepared.ready_for_device || backend == nullptr) return row;
  const Stopwatch wall;
  guard_device_run(row, [&] {
    const KvGatherRun run = backend->run(prepared.problem, prepared.inputs, faults);
    const Tolerance tol = kv_gather_tolerance(prepared.problem);
    std::vector<ComparedTensor> tensors = {
        {"K", compare(widen(prepared.expected.k), run.out.k, tol, run.k_unwritten), tol},
        {"V", compare(widen(prepared.expected.v), run.out.v, tol, run.v_unwritten), tol}};
    for (ComparedTensor& t : tensors) name_elements(t, kv_gather_element_names(prepared.problem));
    settle_row(row, run.diag, std::move(tensors));
  });
  row.wall_ms += wall.ms();
  return row;
}

CaseResult run_gather_case(const KvGatherProblem& p, Backend* backend, std::string_view unavailable_reason,
                           const FaultSet& faults) {
  return finish_gather_case(prepare_gather_case(p, backend, unavailable_reason, faults), backend, faults);
}

}  // namespace mlacheck
