#include "device/hip_backend/persistent_plan.hpp"

#include <algorithm>

namespace mlacheck {

PersistentPlan plan_persistent_decode(const PlannerInputs& in, int block_slots, const FaultSet& faults) {
  PersistentPlan plan;
  plan.built = metadata_info(in, block_slots);
  plan.sized = plan.built;
  // Fault metadata-sized-for-single-token (UPSTREAM R3, vLLM PR #45227): the buffers are sized as
  // for single-token decode (aiter's get_mla_metadata_info_v1 called with qo_len 1) while the build
  // and the kernel take the batch's real q_len (MTP verify: num_spec + 1). build_metadata still gets
  // the real q_len, as upstream's builder did, so its refusal of a q_len beyond its info does not
  // hide the mistake. Its buffer check stays: below 128 padded heads a q tile holds 2 to 8 tokens,
  // one token's sizing gives the same six shapes for q_len up to q_tile_tokens, and the build
  // passes; where it needs more tiles (128+ padded heads, or longer q_len) the six buffers are too
  // small for the items and our builder refuses (ERRORED) where upstream's wrote past them.
  if (faults.has(Fault::metadata_sized_for_single_token)) {
    plan.sized = metadata_info(plan.built.max_batch, 1, plan.built.padded_heads, plan.built.num_cus);
  }
  plan.metadata = allocate_metadata(plan.sized);
  plan.header = build_metadata(in.qo_indptr, in.kv_indptr, plan.built, view(plan.metadata));
  // The partial buffers follow the sizing, as upstream's do (sized.partial_rows is their bound),
  // tightened to the rows this plan uses so that their guard canaries sit right behind the last
  // row a correct launch writes: with worst-case buffers S2's overrun hid in the slack. A correct
  // sizing always covers the plan (the bound of metadata_info.cpp), so this is the plan's rows. A
  // sizing for one token counts one row per partial, and under R3 the kernel writes q_len rows for
  // each: once the plan's rows pass that bound (requests split over many CUs), the rows beyond it
  // land on the canary and past it.
  plan.partial_rows =
      std::max<std::int64_t>(std::min<std::int64_t>(plan.header.partial_rows, plan.sized.partial_rows), 1);
  return plan;
}

}  // namespace mlacheck
