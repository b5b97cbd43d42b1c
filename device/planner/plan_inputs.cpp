#include "device/planner/plan_inputs.hpp"

#include <algorithm>

namespace mlacheck {

PlannerInputs planner_inputs(const MlaDecodeProblem& p) { return {qo_indptr(p), kv_indptr(p), padded_heads(p)}; }

MetadataInfo metadata_info(const PlannerInputs& in, int num_cus) {
  const int batch = static_cast<int>(in.qo_indptr.size()) - 1;
  int max_q_len = 0;
  for (int b = 0; b < batch; ++b) max_q_len = std::max(max_q_len, in.qo_indptr[b + 1] - in.qo_indptr[b]);
  return metadata_info(batch, max_q_len, in.padded_heads, num_cus);
}

}  // namespace mlacheck
