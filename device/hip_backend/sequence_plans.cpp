#include "device/hip_backend/sequence_plans.hpp"

namespace mlacheck {

const PersistentPlan& SequencePlans::next(const std::function<PersistentPlan()>& build) {
  if (!first_) {
    first_ = build();
    current_ = *first_;
  } else if (stale_) {
    // Fault plan-stale-at-replay (UPSTREAM R5): the step's plan is never built for its lengths; the
    // captured buffers keep the first step's. Its kv ranges index kv_indices positions of the first
    // step's layout, which the sequence's kv_indices buffer (sized for its busiest step) holds, so
    // the kernel reads stale-but-allocated slots of the pool: wrong tokens, never a wild address.
    current_ = *first_;
  } else {
    current_ = build();
  }
  ++steps_;
  return current_;
}

}  // namespace mlacheck
