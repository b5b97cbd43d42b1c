#include "harness/oracle_self_check.hpp"

#include <algorithm>
#include <cmath>

#include "core/element_names.hpp"
#include "core/mla_inputs.hpp"
#include "harness/case_timing.hpp"
#include "reference/mla_decode_plain.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {

namespace {

// Two oracles that round at the same points agree to a few ulps of double; 1e-12 relative
// leaves room for the different summation orders without hiding a real disagreement.
Tolerance self_check_tolerance(const std::vector<double>& expected) {
  double scale = 0.0;
  for (double e : expected) scale = std::max(scale, std::abs(e));
  Tolerance t;
  t.rel = 1e-12;
  t.abs = 1e-12 * scale;
  t.rms = 1e-12;
  t.rule = "oracle self-check: |d| <= 1e-12*max|e| + 1e-12*|e|, rms <= 1e-12";
  return t;
}

}  // namespace

CaseResult run_oracle_self_check(const MlaDecodeProblem& p) {
  const Stopwatch wall;
  CaseResult row;
  row.id = p.name;
  row.op = "mla_decode";
  row.repro = to_repro(p);
  row.backend = "oracle-plain";
  row.device = "cpu";
  row.path = "oracle";
  try {
    const MlaDecodeInputs in = make_inputs(p);
    for (PRoundingPoint mode : {PRoundingPoint::kept_f32, PRoundingPoint::to_q_dtype}) {
      const Stopwatch ref_clock;
      const auto eigen = mla_decode_reference(p, in, mode);
      row.reference_ms += ref_clock.ms();
      const auto plain = mla_decode_plain(p, in, mode);
      const std::string suffix = mode == PRoundingPoint::kept_f32 ? "" : " (P rounded)";
      const Tolerance to = self_check_tolerance(plain.o);
      const Tolerance tl = self_check_tolerance(plain.lse);
      row.tensors.push_back({"O" + suffix, compare(plain.o, eigen.o, to), to});
      name_elements(row.tensors.back(), mla_o_element_names(p));
      row.tensors.push_back({"LSE" + suffix, compare(plain.lse, eigen.lse, tl), tl});
      name_elements(row.tensors.back(), mla_lse_element_names(p));
    }
    const Verdict v = judge(row.tensors);
    row.state = v.state;
    row.fail_kind = v.state == ResultState::failed ? FailKind::wrong_output : FailKind::none;
    row.reason = v.reason;
  } catch (const std::exception& e) {
    set_errored(row, ErrorKind::harness_error, e.what());
  }
  row.wall_ms = wall.ms();
  return row;
}

}  // namespace mlacheck
