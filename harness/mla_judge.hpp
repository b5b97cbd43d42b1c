#pragma once
// The verdict of an mla_decode case from the outputs a backend wrote: tolerance from the inputs,
// compare O (and LSE when the backend writes it) against the oracle, judge, canaries. One step,
// whoever ran the backend: the C++ driver (finish_mla_case) for the built-in backend, and the
// harness C API (api/) for outputs a Python backend produced, so both write the same row.
#include <cstdint>
#include <span>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/rounding_points.hpp"
#include "core/tolerance.hpp"
#include "device/backend.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

// What a backend wrote, decoded. Shapes are O [total_q_tokens, heads, Lv] and LSE
// [total_q_tokens, heads]; a flag span is empty (nothing known to be unwritten) or has one flag
// per element (1: the element still held the poison pattern).
struct MlaActualOutputs {
  std::span<const float> o;  // values of o_dtype
  std::span<const std::uint8_t> o_unwritten;
  // False when the backend declares it writes no LSE: then only O is compared.
  bool has_lse = true;
  // Natural log. Double so that a conversion from a backend's log2 LSE adds no rounding.
  std::span<const double> lse;
  std::span<const std::uint8_t> lse_unwritten;
};

// Fills row's tensors, state, reason, canaries, path, splits and device time. `expected` and
// `scales` are the exact oracle's (mla_decode_reference with scales); `p_rounding` is what the
// backend declared (Backend::p_rounding): declared, the tight rule judges, against the
// kernel-faithful oracle (faithful_oracle) where the rule picks it; undeclared, the generic model
// of the same rule. Throws std::invalid_argument when an output's size disagrees with the problem
// (a caller's bug: the C API checks shapes before it gets here).
void judge_mla_outputs(CaseResult& row, const MlaDecodeProblem& p, const MlaDecodeOutputs<double>& expected,
                       const MlaErrorScales& scales, PRoundingPoint p_rounding, const MlaActualOutputs& actual,
                       const RunDiagnostics& diag);

}  // namespace mlacheck
