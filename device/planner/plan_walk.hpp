#pragma once
// A host twin of how the persistent kernels read a plan, for tests and diagnostics. It walks
// work_indptr and work_info_set as the persistent kernel does -- masking each query row with the
// item's own kv_offset, as the kernel must -- and the reduce_* buffers as the reduce kernel does,
// and reports every disagreement with the batch the plan is for. It shares no code with the
// planner beyond the layout, so a planner mistake is not mirrored here.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "device/planner/metadata_buffers.hpp"

namespace mlacheck {

struct PlanWalk {
  // Malformed header, indptr or item; a plan made for another head count than the kernel runs.
  std::vector<std::string> structure;
  // A (request, query row, kv position) the causal rule lets the row see that no item or more than
  // one item covers, or a row whose kv comes from items of different q tiles.
  std::vector<std::string> coverage;
  // An item whose kv_offset masks its rows differently from the causal rule, or that holds kv
  // positions no row of its tile sees.
  std::vector<std::string> causal;
  // partial_qo_loc set on an unsplit tile or -1 on a split one, partial rows written twice or
  // beyond the header, reduce buffers disagreeing with the items.
  std::vector<std::string> partials;

  std::vector<std::int64_t> cu_payload;  // per CU: sum over its items of ceil(kv tokens / 16) + 16
  std::int64_t head_tiles = 0;           // head tiles of 16 every item covers: all the kernel's heads
  std::int64_t covered = 0;              // (request, row, head tile, kv position) covered exactly once
  std::int64_t split_tiles = 0;          // q tiles whose kv range was split over several items
  std::int64_t empty_partial_rows = 0;   // rows of split items that see none of the item's kv

  bool clean() const;
  std::string summary() const;  // every defect, one per line
};

// qo_indptr and kv_indptr: the batch's true prefix sums (batch + 1 each, kv_len >= q_len or 0: a
// padded request, whose rows must still be covered, by one empty item per q tile);
// padded_heads: the head count the kernel runs with (what q was padded to).
PlanWalk walk_plan(const ConstMetadataView& plan, std::span<const std::int32_t> qo_indptr,
                   std::span<const std::int32_t> kv_indptr, int padded_heads);

}  // namespace mlacheck
