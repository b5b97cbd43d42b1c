#pragma once
// The persistent step's plan on the host: the sizing of the six scheduling buffers and of the
// partial rows, and the build for one batch. Apart from the step (persistent_step.cpp, which needs
// the runtime's occupancy query for its block slots) so that the sizing, where UPSTREAM S2 and R3
// went wrong, can be tested without a GPU.
#include <cstdint>

#include "device/faults.hpp"
#include "device/planner/metadata.hpp"
#include "device/planner/plan_inputs.hpp"

namespace mlacheck {

struct PersistentPlan {
  MetadataInfo sized;       // the sizing: the six buffers' shapes and the bound on partial rows
  MetadataInfo built;       // what build_metadata planned with; the launch is told this one
  HostMetadata metadata;    // the six buffers, shaped as `sized` says
  MetadataHeader header{};  // the plan's own counts: header.partial_rows rows are what the kernel writes
  // Rows the step allocates for partial O [rows, padded_heads, Lv] and LSE [rows, padded_heads]:
  // the rows this plan uses, within what the sizing provides (at least one).
  std::int64_t partial_rows = 0;
};

// `in` as the step computed it (faults S2, S3 and R8 change it first); `block_slots` is the
// planner's num_cus, the resident blocks of the kernel. The only fault read here is
// metadata-sized-for-single-token (R3). Throws InvalidPlanInput as build_metadata does.
PersistentPlan plan_persistent_decode(const PlannerInputs& in, int block_slots, const FaultSet& faults);

}  // namespace mlacheck
