#include "reference/p_bucket_kinds.hpp"

#include "core/dtype.hpp"

namespace mlacheck {

PBucketKinds p_buckets_judged(const MlaDecodeProblem& p, PRoundingPoint point) {
  const ResolvedPRounding pr = resolve_p_rounding(p, point);
  const bool whole = pr.rounded && !pr.split;
  return {whole && pr.dtype == DType::bf16, whole && pr.dtype == DType::f16};
}

}  // namespace mlacheck
