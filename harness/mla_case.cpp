#include "harness/mla_case.hpp"

#include <algorithm>
#include <cmath>

#include "core/mla_inputs.hpp"
#include "core/mla_sequence.hpp"
#include "harness/case_timing.hpp"
#include "harness/device_outcome.hpp"
#include "harness/mla_judge.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {

namespace {

double max_abs_finite(const std::vector<float>& v) {
  double m = 0.0;
  for (float x : v) {
    if (std::isfinite(x)) m = std::max(m, std::abs(static_cast<double>(x)));
  }
  return m;
}

}  // namespace

CaseResult new_mla_row(const MlaDecodeProblem& p, const FaultSet& faults) {
  CaseResult row;
  row.id = p.name;
  row.op = "mla_decode";
  row.repro = to_repro(p);
  row.faults = describe_faults(faults);
  return row;
}

void prepare_mla_oracle(PreparedMlaCase& c, PBucketKinds buckets, int oracle_threads) {
  try {
    if (is_sequence(c.problem)) {
      const Stopwatch ref_clock;
      c.steps = prepare_sequence_steps(c.problem);
      c.row.reference_ms = ref_clock.ms();
      c.ready_for_device = true;
      return;
    }
    if (c.inputs.q.empty()) c.inputs = make_inputs(c.problem, oracle_threads);
    const Stopwatch ref_clock;
    c.expected = mla_decode_reference(c.problem, c.inputs, PRoundingPoint::kept_f32, &c.scales, oracle_threads, buckets);
    c.row.reference_ms = ref_clock.ms();
    c.ready_for_device = true;
  } catch (const std::exception& e) {
    // The oracle refusing a valid problem is a harness error, not a device result.
    set_errored(c.row, ErrorKind::harness_error, std::string("reference: ") + e.what());
  }
}

MlaInputMagnitudes input_magnitudes(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  // Unused cache slots hold NaN on purpose; only finite (used) values bound what is read. Both are
  // dequantised: an fp8 query's codes by q_scale (1 for other queries), the cache's by kv_scale.
  return {max_abs_finite(in.q) * static_cast<double>(p.q_scale),
          max_abs_finite(in.kv_cache) * static_cast<double>(p.kv_scale)};
}

PreparedMlaCase prepare_mla_case(const MlaDecodeProblem& p, const Backend* backend, std::string_view unavailable_reason,
                                 const FaultSet& faults, int oracle_threads) {
  const Stopwatch wall;
  PreparedMlaCase out;
  out.problem = p;
  out.row = new_mla_row(p, faults);
  const bool admitted = is_sequence(p) ? admit_sequence(out.row, backend, unavailable_reason, p)
                                       : admit_case(out.row, backend, unavailable_reason, p);
  if (!admitted) return out;
  // Admitted: the backend is known, and so is the rounding point its rows are judged against.
  prepare_mla_oracle(out, p_buckets_judged(p, backend->p_rounding()), oracle_threads);
  out.row.wall_ms = wall.ms();
  return out;
}

CaseResult finish_mla_case(const PreparedMlaCase& prepared, Backend* backend, const FaultSet& faults) {
  CaseResult row = prepared.row;
  if (!prepared.ready_for_device || backend == nullptr) return row;
  const Stopwatch wall;
  const MlaDecodeProblem& p = prepared.problem;
  if (is_sequence(p)) {
    run_sequence_steps(row, p, prepared.steps, *backend, faults);
    row.wall_ms += wall.ms();
    return row;
  }
  guard_device_run(row, [&] {
    const MlaDecodeRun run = backend->run(p, prepared.inputs, faults);
    const std::vector<double> lse(run.out.lse.begin(), run.out.lse.end());
    // A backend that writes no LSE is judged on O alone; the missing LSE columns record it.
    judge_mla_outputs(row, p, prepared.expected, prepared.scales, backend->p_rounding(),
                      {run.out.o, run.o_unwritten, run.lse_written, lse, run.lse_unwritten}, run.diag);
  });
  row.wall_ms += wall.ms();
  return row;
}

double MlaDecodeOp::work(const MlaDecodeProblem& p) {
  double rows = 0.0;
  for (int s = 0; s < p.steps; ++s) {
    for (int r = 0; r < batch(p); ++r) rows += static_cast<double>(kv_len_at(p, r, s)) * p.q_lens[r];
  }
  return rows * padded_heads(p) * lk(p);
}

CaseResult run_mla_case(const MlaDecodeProblem& p, Backend* backend, std::string_view unavailable_reason,
                        const FaultSet& faults) {
  return finish_mla_case(prepare_mla_case(p, backend, unavailable_reason, faults), backend, faults);
}

}  // namespace mlacheck
