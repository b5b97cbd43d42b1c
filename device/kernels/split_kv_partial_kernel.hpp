#pragma once
// Stage 1 of the split-KV MLA decode: one block per (request, token group, head group, split)
// attends its row group (row_group_attention.hpp: the group's query tokens x head tiles, each with
// its own causal limit) to the split's share of the request's KV range and writes a partial O
// (fp32, normalised by its own sum) and a partial LSE (natural log) per (token, head, split).
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>

#include "device/kernels/row_group_attention.hpp"
#include "device/kernels/split_kv_plan.hpp"

namespace mlacheck::kernels {

struct PartialParams {
  AttentionParams attention;
  RowGroups groups;
  const void* q;                   // [total_q_tokens, padded_heads, lk], q dtype
  const std::int32_t* kv_indices;  // flat slot of each request's tokens, from kv_indptr[b]
  const std::int32_t* kv_indptr;   // [batch + 1]
  const std::int32_t* qo_indptr;   // [batch + 1]
  float* partial_o;                // [total_q_tokens, padded_heads, num_splits, lv]
  float* partial_lse;              // [total_q_tokens, padded_heads, num_splits]
  int padded_heads;
  int num_splits;
  int token_groups;  // ceil(max_q_len / groups.tokens)
  // Fault non-pow2-qlen-rows-collapse (UPSTREAM S4): for a q_len that is not a power of two, every
  // query row of a request is computed as its last row, so all rows carry that row's output.
  bool collapse_non_pow2_rows;
  // Fault empty-split-unwritten (UPSTREAM R2): a row tile that sees none of the split's range
  // (a split past the request's tokens, or past a query row's causal limit) is left out and the
  // block returns early when none is left, so its partial is never written; stage 2 merges it anyway.
  bool skip_empty_rows;
  // Fault lengths-indexed-by-query-row (UPSTREAM R12): the request's kv range (its length and its
  // table row, here its kv_indptr entries) is read at the index of its first query row, not at b.
  bool kv_range_by_query_row;
  // Fault padded-fp8-single-request (UPSTREAM R6): the padded-head fp8 regime was written for one
  // request, so every request reads its kv from the start of the flat kv space (request 0's).
  bool kv_of_first_request;
};

// What one stage-1 block attends: its row tiles (q, output row, causal limit each), the kv slots of
// its split and how many of them. `leaves`: nothing to attend or write (a token group past the
// request's q_len, or, under empty-split-unwritten, a split no row sees).
template <int kRowTiles>
struct PartialBlock {
  RowTiles<kRowTiles> rows;
  const std::int32_t* slots = nullptr;
  std::int64_t n_tokens = 0;
  bool leaves = false;
};

// blockIdx.x = (request * token_groups + token group) * head groups + head group, so the head
// groups of one request's rows, which read the same KV, run side by side; blockIdx.y = split.
// Shared by every stage-1 kernel (this one and the Hopper one, split_kv_wgmma_kernel.hpp).
template <class Q, int kRowTiles>
__device__ PartialBlock<kRowTiles> partial_block(const PartialParams& p) {
  PartialBlock<kRowTiles> block;
  const int head_groups = p.padded_heads / kHeadTile / p.groups.head_tiles;
  const int head_group = static_cast<int>(blockIdx.x) % head_groups;
  const int token_group = static_cast<int>(blockIdx.x) / head_groups % p.token_groups;
  const int b = static_cast<int>(blockIdx.x) / head_groups / p.token_groups;
  const int split = static_cast<int>(blockIdx.y);
  const int lk = p.attention.lv + p.attention.rope;

  const int qo_begin = p.qo_indptr[b];
  const int q_len = p.qo_indptr[b + 1] - qo_begin;
  const int first_row = token_group * p.groups.tokens;
  block.leaves = first_row >= q_len;  // a shorter request than the longest: the whole block leaves
  if (block.leaves) return block;
  const int kv_request = p.kv_range_by_query_row ? qo_begin + first_row : b;
  const int kv_len = p.kv_indptr[kv_request + 1] - p.kv_indptr[kv_request];
  const int kv_begin = p.kv_of_first_request ? 0 : p.kv_indptr[kv_request];
  const bool collapse = p.collapse_non_pow2_rows && (q_len & (q_len - 1)) != 0;
  // Splits cut the request's whole KV range in kKvTile-aligned pieces, so a row that sees fewer
  // tokens than the request holds can find its last splits empty, and a short request (a padded
  // one: every split) owns splits past its tokens.
  const KvRange range = split_kv_range(kv_len, p.num_splits, split);
  const std::int64_t begin = range.begin;
  const std::int64_t end = range.end;

#pragma unroll
  for (int r = 0; r < kRowTiles; ++r) {
    const int query = first_row + r / p.groups.head_tiles;  // the request's query row of this slot
    if (r >= p.groups.head_tiles * p.groups.tokens || query >= q_len) continue;
    const int attended = collapse ? q_len - 1 : query;  // the row whose q and view it computes
    const int head0 = (head_group * p.groups.head_tiles + r % p.groups.head_tiles) * kHeadTile;
    // Causal, aligned bottom-right: the row sees kv positions [0, kv_len - q_len + attended].
    const std::int64_t visible = kv_len - q_len + attended + 1;
    const std::int64_t seen = (visible < end ? visible : end) - begin;
    if (p.skip_empty_rows && seen <= 0) continue;
    block.rows.tile[r].q =
        static_cast<const Q*>(p.q) + (std::int64_t{qo_begin + attended} * p.padded_heads + head0) * lk;
    block.rows.tile[r].out_row = std::int64_t{qo_begin + query} * p.padded_heads + head0;
    block.rows.tile[r].limit = static_cast<int>(seen > 0 ? seen : 0);
    block.n_tokens = block.n_tokens > seen ? block.n_tokens : seen;
  }
  block.leaves = p.skip_empty_rows && block.n_tokens <= 0;
  block.slots = p.kv_indices + kv_begin + begin;
  return block;
}

// Where the row tile at out_row puts split s's partial: row (token, head) of split s at
// ((token * padded_heads + head) * num_splits + s) * lv, its LSE at (token * padded_heads + head) * num_splits + s.
__device__ inline RowTileOut<float> partial_out(const PartialParams& p, std::int64_t out_row) {
  const int split = static_cast<int>(blockIdx.y);
  return RowTileOut<float>{p.partial_o + (out_row * p.num_splits + split) * p.attention.lv,
                           std::int64_t{p.num_splits} * p.attention.lv, p.partial_lse + out_row * p.num_splits + split,
                           p.num_splits};
}

template <class Q, class KV, int kRowTiles>
__global__ void __launch_bounds__(kAttentionThreads, (RowGroupAttention<Q, KV, kRowTiles>::G::kBlocksPerCu))
    split_kv_partial_kernel(PartialParams p) {
  using Attention = RowGroupAttention<Q, KV, kRowTiles>;
  extern __shared__ Chunk16 dynamic_shared[];
  auto& shared = *reinterpret_cast<typename Attention::Shared*>(dynamic_shared);
  const PartialBlock<kRowTiles> block = partial_block<Q, kRowTiles>(p);
  if (block.leaves) return;
  const auto state = Attention::attend(shared, p.attention, block.rows, block.slots, block.n_tokens);
  Attention::template write<float>(shared, state, p.attention,
                                   [&](std::int64_t out_row) { return partial_out(p, out_row); });
}

}  // namespace mlacheck::kernels
