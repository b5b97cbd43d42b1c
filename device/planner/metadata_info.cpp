// Buffer shapes for the worst batch within the maxima, whatever its kv lengths.
//
// Why the bounds hold (N = num_cus, T = q_tile_tokens, M = max_batch * ceil(max_q_len / T), the
// most q tiles a batch within the maxima has; Q = ceil(total / N), so payload_cap = Q + 16):
//
// 1. Everything fits on N CUs and the last CU never splits. Call a piece of a tile that began on
//    an earlier CU a continuation; only a CU's first item can be one, and its overhead is the only
//    payload not counted in `total`. A CU closes either after a split, full (payload = cap), or
//    with at most one overhead of room left (payload >= cap - 16 = Q). Group the CUs into runs: a
//    run starts on a CU that begins with a fresh tile and continues while CUs close by splitting.
//    Counting payload net of continuation overheads, the first CU of a run of several adds
//    Q + 16, each middle CU Q, the last at least Q - 16; a run of one adds at least Q. So after any
//    c closed CUs at least c * Q of `total` is placed, at most Q of it is left for CU N - 1, and
//    with at most one continuation overhead that is at most Q + 16 = cap: it fits whole.
// 2. Hence at most N - 1 splits, each adding one item to its tile's one: items <= M + N - 1.
// 3. Only split tiles are reduced, and each holds at least one split: reduce tiles <= min(M, N - 1).
// 4. A split tile's items are all partials: partials = splits + split tiles <= N - 1 + min(M, N - 1).
// 5. A partial writes one row per token of its tile: partial rows <= partials * min(T, max_q_len).
//
// None of these depend on kv lengths: long sequences change which tiles split, not how many
// splits there can be. Every bound depends on the head count through T, which is why sizing with
// one head count and planning with another (UPSTREAM.md S2) overruns: build_metadata therefore
// takes its head count from the MetadataInfo the buffers were sized with.
#include <algorithm>
#include <limits>
#include <string>

#include "device/planner/metadata.hpp"
#include "device/planner/planner_error.hpp"

namespace mlacheck {
namespace {

void require_positive(int value, const char* name) {
  if (value < 1) throw InvalidPlanInput(std::string(name) + "=" + std::to_string(value) + ": must be >= 1");
}

// Indices into every buffer, the partial ones included, are int32 on the device.
void require_int32_indexable(std::int64_t n, std::string_view buffer) {
  if (n > std::numeric_limits<std::int32_t>::max()) {
    throw InvalidPlanInput(std::string(buffer) + " would need " + std::to_string(n) +
                           " elements, beyond 32-bit indexing; lower max_batch or max_q_len");
  }
}

std::size_t elements(std::int64_t n, std::string_view buffer) {
  require_int32_indexable(n, buffer);
  return static_cast<std::size_t>(std::max<std::int64_t>(n, 1));
}

}  // namespace

MetadataInfo metadata_info(int max_batch, int max_q_len, int padded_heads, int num_cus) {
  require_positive(max_batch, "max_batch");
  require_positive(max_q_len, "max_q_len");
  require_positive(padded_heads, "padded_heads");
  require_positive(num_cus, "num_cus");

  MetadataInfo info;
  info.max_batch = max_batch;
  info.max_q_len = max_q_len;
  info.padded_heads = padded_heads;
  info.num_cus = num_cus;
  info.q_tile_tokens = q_tile_tokens(padded_heads);

  const std::int64_t tiles_per_request = (max_q_len + info.q_tile_tokens - 1) / info.q_tile_tokens;
  const std::int64_t max_tiles = std::int64_t{max_batch} * tiles_per_request;
  const std::int64_t max_splits = num_cus - 1;
  info.max_work_items = max_tiles + max_splits;
  info.max_reduce_tiles = std::min(max_tiles, max_splits);
  info.max_partials = max_splits + info.max_reduce_tiles;
  info.partial_rows = info.max_partials * std::min(info.q_tile_tokens, max_q_len);

  auto& e = info.elements;
  e.work_meta_data = kHeaderInts;
  e.work_indptr = elements(std::int64_t{num_cus} + 1, "work_indptr");
  e.work_info_set = elements(info.max_work_items * kWorkItemInts, "work_info_set");
  e.reduce_indptr = elements(info.max_reduce_tiles + 1, "reduce_indptr");
  e.reduce_final_map = elements(info.max_reduce_tiles * 2, "reduce_final_map");
  e.reduce_partial_map = elements(info.max_partials, "reduce_partial_map");
  require_int32_indexable(info.partial_rows, "the partial O/LSE buffers (rows)");
  return info;
}

HostMetadata allocate_metadata(const MetadataInfo& info) {
  HostMetadata m;
  const auto& sizes = info.elements;
  m.work_meta_data.assign(sizes.work_meta_data, 0);
  m.work_indptr.assign(sizes.work_indptr, 0);
  m.work_info_set.assign(sizes.work_info_set, 0);
  m.reduce_indptr.assign(sizes.reduce_indptr, 0);
  m.reduce_final_map.assign(sizes.reduce_final_map, 0);
  m.reduce_partial_map.assign(sizes.reduce_partial_map, 0);
  return m;
}

}  // namespace mlacheck
