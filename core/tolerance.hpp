#pragma once
// Tolerances derived from the dtypes and the accumulation lengths of a problem, never hand-tuned.
// The rule and its inputs are written into Tolerance::rule so every report row says why its
// bound is what it is. docs/tolerance.md explains the derivation.
#include "core/compare.hpp"
#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

struct MlaTolerances {
  Tolerance o;
  Tolerance lse;
};

// max_abs_q: largest |q|; max_abs_kv: largest |dequantised cache value| a request reads.
// p_rounded: the kernel rounds P to the input dtype before P.V (and the reference did not).
MlaTolerances mla_decode_tolerance(const MlaDecodeProblem& p, double max_abs_q, double max_abs_kv,
                                   bool p_rounded = true);

// Gather is a copy (bitwise: abs = rel = rms = 0) or a dequantisation (one rounding to out_dtype).
Tolerance kv_gather_tolerance(const KvGatherProblem& p);

}  // namespace mlacheck
