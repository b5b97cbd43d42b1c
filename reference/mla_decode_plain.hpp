#pragma once
// A second MLA decode oracle, written as plain loops in long double so that it is obviously
// right: it reads the cache straight through the block table (no page-index expansion, no
// gathered matrix) and computes each (token, head) row on its own. Slow; kept only to check
// mla_decode_reference, which it must match to ~1e-12 (same definitions and rounding points,
// see mla_decode_reference.hpp).
#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {

MlaDecodeOutputs<double> mla_decode_plain(const MlaDecodeProblem& p, const MlaDecodeInputs& in,
                                          PRoundingPoint rounding = PRoundingPoint::kept_f32);

}  // namespace mlacheck
