#pragma once
// The planner's inputs for a problem, computed the correct way: per-request prefix sums of query
// and kv tokens, and the head count the kernels see (padded: 16 below 16, else the next multiple
// of 16). The planner never derives these itself, so a backend reproducing a historic fault can
// change one field before planning -- S2 plans with heads(p) instead of padded_heads(p), S3
// builds qo_indptr as arange(batch + 1) -- and the rest of the pipeline stays the production one.
#include <cstdint>
#include <vector>

#include "core/mla_problem.hpp"
#include "device/planner/metadata.hpp"

namespace mlacheck {

struct PlannerInputs {
  std::vector<std::int32_t> qo_indptr;  // batch + 1: query tokens
  std::vector<std::int32_t> kv_indptr;  // batch + 1: kv tokens, the flat kv_indices space
  int padded_heads = 0;
};

PlannerInputs planner_inputs(const MlaDecodeProblem& p);

// Shapes sized for exactly this batch (its request count and largest q_len, read from the
// inputs themselves, so a changed field carries through sizing and planning alike).
MetadataInfo metadata_info(const PlannerInputs& in, int num_cus);

}  // namespace mlacheck
