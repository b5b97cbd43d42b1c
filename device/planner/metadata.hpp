#pragma once
// The persistent-decode planner: metadata_info sizes the six scheduling buffers for the worst
// batch within some maxima, build_metadata fills them for one batch. Semantics follow upstream
// aiter's MLA metadata (UPSTREAM.md, "Semantics worth getting exactly right"), extended to any
// q_len: upstream plans only single-token decode.
//
// The plan. Each request's query tokens are cut into q tiles (plan_layout.hpp); a tile needs the
// kv prefix its last row sees, kv_len - q_len + row_end tokens, counted in 16-token granules.
// With total = sum over tiles of (granules + kItemOverheadGranules), every CU may take
//     payload_cap = ceil(total / num_cus) + kItemOverheadGranules
// granules of payload (an item costs its granules plus the overhead; a padded request's tiles
// have no granules and one empty item each, which writes O 0 and LSE -inf). Tiles are packed greedily
// in (request, tile) order from CU 0 up: a tile that fits the room left goes whole; otherwise, if
// more than one overhead of room is left, the tile is split at a granule boundary and the CU is
// full; otherwise the CU closes. Items of a split tile write partial rows that the reduce kernel
// merges; every other item writes the final output (partial_qo_loc = -1).
//
// Balance this guarantees (metadata_info.cpp proves it): no CU takes more than payload_cap, which
// is at most one item overhead above the mean payload rounded up; every CU before the last busy
// one takes at least ceil(total / num_cus), less than one overhead below the mean; the last busy
// CU may take less, and CUs after it stay idle (greedy in-order packing fills from CU 0).
//
// Head counts: the planner takes the head count the kernel will see as given. Callers pass the
// padded count (plan_inputs.hpp computes it); it is a parameter, not derived here, so that the
// historic fault of planning with the unpadded count (S2) can be put back by a caller.
#include <cstddef>
#include <cstdint>
#include <span>

#include "device/planner/metadata_buffers.hpp"
#include "device/planner/plan_layout.hpp"

namespace mlacheck {

// Buffer shapes for every batch of at most max_batch requests of at most max_q_len query tokens
// each, with any kv lengths, planned for padded_heads heads on num_cus CUs.
struct MetadataInfo {
  int max_batch = 0;
  int max_q_len = 0;
  int padded_heads = 0;
  int num_cus = 0;
  int q_tile_tokens = 0;
  // The bounds the shapes come from (metadata_info.cpp derives them).
  std::int64_t max_work_items = 0;
  std::int64_t max_reduce_tiles = 0;
  std::int64_t max_partials = 0;
  // Rows the partial O [partial_rows, padded_heads, Lv] and LSE [partial_rows, padded_heads]
  // buffers need; the backend allocates them, sized from the same head count as the plan.
  std::int64_t partial_rows = 0;
  // int32 elements of each buffer; never 0, so a device allocation of one is never null.
  MetadataBuffers<std::size_t> elements{};

  bool operator==(const MetadataInfo&) const = default;
};

// Throws InvalidPlanInput for a non-positive argument or shapes beyond 32-bit indexing.
MetadataInfo metadata_info(int max_batch, int max_q_len, int padded_heads, int num_cus);

// Zero-filled host buffers of the shapes info asks for.
HostMetadata allocate_metadata(const MetadataInfo& info);

// Plans one batch (qo_indptr and kv_indptr: batch + 1 prefix sums each) with the head count and
// CU count `sized_for` was made with, writes the plan to `out` and returns its header (also
// written to work_meta_data). Entries past what the plan uses are 0, except the unused tails of
// work_indptr and reduce_indptr, which repeat their last offset so a grid sized for the maxima
// finds empty ranges there. Deterministic: the same inputs give the same bytes in every buffer.
//
// Throws InvalidPlanInput, naming the input and values, for: indptrs of different or too small
// sizes, not starting at 0, or decreasing; a request with q_len < 1 or kv_len < q_len (the query
// tokens are part of the cache) unless kv_len is 0 (a padded request, planned as one empty item
// per q tile); a batch beyond sized_for's max_batch or a q_len beyond its
// max_q_len; a buffer in `out` smaller than sized_for.elements.
MetadataHeader build_metadata(std::span<const std::int32_t> qo_indptr, std::span<const std::int32_t> kv_indptr,
                              const MetadataInfo& sized_for, const MetadataView& out);

}  // namespace mlacheck
