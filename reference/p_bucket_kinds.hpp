#pragma once
// Which dtypes' rounding buckets the oracle's P statistics measure (MlaErrorScales::p_bucketed).
//
// Measuring a dtype's buckets is the costliest part of the statistics (every row's weights grouped
// by their code and the coherent sums over V, reference/coherent_bucket_sums.hpp), and the tight
// rule reads at most one dtype's: the one P is rounded to whole (core/tolerance.cpp). A caller that
// knows the rounding point it will be judged against measures only that one; a caller that does not
// (the harness C API, whose caller declares the point with the outcome) measures both.
#include "core/mla_problem.hpp"
#include "core/rounding_points.hpp"

namespace mlacheck {

struct PBucketKinds {
  bool bf16 = true;
  bool f16 = true;
};

// The buckets the tight rule reads for `point` on p: P's dtype where P is rounded whole to bf16 or
// f16 (not split into hi + lo), none where P is kept or split. The other fields of p_bucketed are
// left at zero.
PBucketKinds p_buckets_judged(const MlaDecodeProblem& p, PRoundingPoint point);

}  // namespace mlacheck
