#pragma once
// The binary layout of a persistent-decode plan as the kernels read it. Plain int32 structs and
// constexpr functions only, so the same header compiles for the host, HIP and CUDA: the planner
// (metadata.hpp) writes these, the persistent kernel and the reduce kernel read them.
//
// Work unit. One work item is (request, q tile, kv range) for all padded heads of the q tile's
// tokens. A q tile is up to q_tile_tokens(padded_heads) consecutive query tokens of one request,
// so one item holds at most kTileRows packed query rows (tokens x heads) that share every kv tile
// load -- the reason MLA kernels pack heads and tokens together. Padded head counts of 16, 32, 64
// and 128 give tiles of 8, 4, 2 and 1 tokens; counts over 128 give one token, whose rows the
// kernel walks in head tiles of 16.
#include <cstdint>

namespace mlacheck {

// Kv tokens are planned in granules of 16 (one kv tile of the kernel); payloads count granules.
inline constexpr int kKvGranule = 16;
// Fixed cost of one work item in granules (q load, O/LSE write, loop set-up); upstream's value.
inline constexpr int kItemOverheadGranules = 16;
// Packed query rows (tokens x padded heads) one work item holds.
inline constexpr int kTileRows = 128;
// The kernels' head tile: head counts are padded to multiples of it.
inline constexpr int kHeadTile = 16;

// Query tokens per q tile: as many as fit kTileRows rows with every padded head, at least one.
constexpr int q_tile_tokens(int padded_heads) { return padded_heads >= kTileRows ? 1 : kTileRows / padded_heads; }

inline constexpr int kWorkItemInts = 8;

// One entry of work_info_set (8 int32, the upstream aiter layout).
//
// qo_start/qo_end are global query-token indices (the qo_indptr space); kv_start/kv_end are
// indices into the flat per-token kv_indices space (the kv_indptr space). kv_offset is the number
// of the request's kv tokens after kv_end, so an item carries its own causal mask: the request's
// last kv token is kv_end + kv_offset - 1, and query token r (of a request whose tokens end at
// qo_indptr[batch + 1]) sees the flat kv positions
//     j < kv_end + kv_offset - (qo_indptr[batch + 1] - 1 - r)
// which is the rule "row t sees [0, kv_len - q_len + t]" written in item terms. A row of a split
// item can see none of the item's range (its horizon ends before kv_start): the kernel then
// writes O = 0 and LSE = -inf to that partial row, which the merge must ignore, never NaN.
struct WorkItem {
  std::int32_t batch;           // request index
  std::int32_t partial_qo_loc;  // -1: writes the final O/LSE; else row of the partial buffers for qo_start
  std::int32_t qo_start;
  std::int32_t qo_end;
  std::int32_t kv_start;
  std::int32_t kv_end;
  std::int32_t kv_offset;
  std::int32_t pad;  // always 0: keeps items 32 bytes

  bool operator==(const WorkItem&) const = default;
};
static_assert(sizeof(WorkItem) == kWorkItemInts * sizeof(std::int32_t));

// One q tile whose items were split (an entry pair of reduce_final_map): the final rows the
// reduce kernel writes. Its partial rows are reduce_partial_map[reduce_indptr[i] .. [i + 1]), in
// kv order, each the partial_qo_loc of one item; row qo_start + k of the tile is partial row
// loc + k. Partial O is [partial_rows, padded_heads, Lv] and partial LSE [partial_rows, padded_heads].
struct FinalTile {
  std::int32_t qo_start;
  std::int32_t qo_end;

  bool operator==(const FinalTile&) const = default;
};
static_assert(sizeof(FinalTile) == 2 * sizeof(std::int32_t));

// work_meta_data: what the plan was made for and how much of each buffer it uses, so a kernel or
// a check can refuse a plan made for another head count (UPSTREAM.md S2) instead of misreading it.
struct MetadataHeader {
  std::int32_t padded_heads;   // heads every item covers
  std::int32_t q_tile_tokens;  // q_tile_tokens(padded_heads)
  std::int32_t num_cus;        // work lists in work_indptr
  std::int32_t work_items;     // work_indptr[num_cus]
  std::int32_t reduce_tiles;   // split q tiles (FinalTile entries used)
  std::int32_t partials;       // reduce_partial_map entries used (= split items)
  std::int32_t partial_rows;   // rows of the partial O/LSE buffers used
  std::int32_t payload_cap;    // granules + item overheads any one CU may take

  bool operator==(const MetadataHeader&) const = default;
};
inline constexpr int kHeaderInts = 8;
static_assert(sizeof(MetadataHeader) == kHeaderInts * sizeof(std::int32_t));

}  // namespace mlacheck
