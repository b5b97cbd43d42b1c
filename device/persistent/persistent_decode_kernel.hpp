#pragma once
// The persistent MLA decode kernel: one block per resident block slot (the planner's num_cus)
// walks its work list work_info_set[work_indptr[slot] .. [slot + 1]). A work item is (request,
// q tile, kv range) for every padded head (plan_layout.hpp); the block attends the item's query
// tokens x head tiles in row groups (row_group_attention.hpp, the machinery split-KV uses: each
// group's KV tiles are staged once for all its rows), each row to the part of the item's kv range
// it sees. Unsplit items (partial_qo_loc = -1) write the final O and LSE; items of a split tile
// write fp32 partial rows at partial_qo_loc that the reduce kernel merges.
//
// Causal rule from the item alone: query token r sees flat kv positions
//   j < kv_end + kv_offset - (last token of the request - r)
// so a row of a later piece of a split tile can see none of the piece's range. It then gets
// O = 0, LSE = -inf, which the merge ignores.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>

#include "core/dtype_convert.hpp"
#include "device/kernels/row_group_attention.hpp"
#include "device/kernels/split_kv_plan.hpp"
#include "device/planner/plan_layout.hpp"

namespace mlacheck::kernels {

static_assert(kHeadTile == mlacheck::kHeadTile && kKvTile == mlacheck::kKvGranule,
              "the planner's head tile and kv granule are the kernel's tiles");

struct PersistentParams {
  AttentionParams attention;
  RowGroups groups;                 // row groups of an item's tokens x head tiles
  const void* q;                    // [total_q_tokens, padded_heads, lk], q dtype
  const std::int32_t* kv_indices;   // a cache slot per position of the flat kv space
  const std::int32_t* qo_indptr;    // [batch + 1]
  const std::int32_t* work_indptr;  // [num_cus + 1]
  const WorkItem* work_items;       // work_info_set
  void* o;                          // [total_q_tokens, padded_heads, lv], bf16 or f16
  float* lse;                       // [total_q_tokens, padded_heads]
  float* partial_o;                 // [partial rows, padded_heads, lv]
  float* partial_lse;               // [partial rows, padded_heads]
  int padded_heads;
  // O in f16, else bf16: a run-time choice at the final store, the only place the dtype matters,
  // so the kernel has as many instances as split-KV stage 1 rather than twice as many.
  bool o_f16;
};

// The work loop's registers leave none for the fp8 score products' temporaries: with them the fp8
// instances spilled 40-296 bytes and ran 1.4 times slower on the H100 than with the keys widened
// (CHANGELOG.md, note 8), so this kernel widens them.
inline constexpr bool kPersistentFp8Products = false;

// The work loop both persistent kernels run: every row group of every item of this block's work
// list through Attention (attend(shared, ...) and write<Out>(shared, ...)), whose row groups hold
// kRowTiles row tiles of q type Q.
template <class Attention, class Q, int kRowTiles, class Shared>
__device__ void walk_work_list(const PersistentParams& p, Shared& shared) {
  const int lk = p.attention.lv + p.attention.rope;
  const int lv = p.attention.lv;
  const int head_tiles = p.padded_heads / kHeadTile;
  const RowGroups g = p.groups;
  const std::int32_t first = p.work_indptr[blockIdx.x];
  const std::int32_t last = p.work_indptr[blockIdx.x + 1];
  // Every branch below depends on the item only, so the whole block takes it together and the
  // barriers inside the attention are reached by all threads.
  for (std::int32_t w = first; w < last; ++w) {
    const WorkItem item = p.work_items[w];
    const bool split = item.partial_qo_loc >= 0;
    const std::int32_t request_last_token = p.qo_indptr[item.batch + 1] - 1;
    for (std::int32_t token0 = item.qo_start; token0 < item.qo_end; token0 += g.tokens) {
      for (int head_tile0 = 0; head_tile0 < head_tiles; head_tile0 += g.head_tiles) {
        RowTiles<kRowTiles> rows;
        std::int64_t n_tokens = 0;
#pragma unroll
        for (int r = 0; r < kRowTiles; ++r) {
          const std::int32_t token = token0 + r / g.head_tiles;
          if (r >= g.head_tiles * g.tokens || token >= item.qo_end) continue;
          const int head0 = (head_tile0 + r % g.head_tiles) * kHeadTile;
          const std::int64_t horizon = std::int64_t{item.kv_end} + item.kv_offset - (request_last_token - token);
          const std::int64_t seen = (horizon < item.kv_end ? horizon : std::int64_t{item.kv_end}) - item.kv_start;
          const std::int32_t out_token = split ? item.partial_qo_loc + (token - item.qo_start) : token;
          rows.tile[r].q = static_cast<const Q*>(p.q) + (std::int64_t{token} * p.padded_heads + head0) * lk;
          rows.tile[r].out_row = std::int64_t{out_token} * p.padded_heads + head0;
          rows.tile[r].limit = static_cast<int>(seen > 0 ? seen : 0);
          n_tokens = n_tokens > seen ? n_tokens : seen;
        }
        const auto state = Attention::attend(shared, p.attention, rows, p.kv_indices + item.kv_start, n_tokens);
        // Packed row (token, head): O at row * lv, LSE at row, in the partial or the final buffers.
        if (split) {
          Attention::template write<float>(shared, state, p.attention, [&](std::int64_t row) {
            return RowTileOut<float>{p.partial_o + row * lv, lv, p.partial_lse + row, 1};
          });
        } else if (p.o_f16) {
          Attention::template write<f16_t>(shared, state, p.attention, [&](std::int64_t row) {
            return RowTileOut<f16_t>{static_cast<f16_t*>(p.o) + row * lv, lv, p.lse + row, 1};
          });
        } else {
          Attention::template write<bf16_t>(shared, state, p.attention, [&](std::int64_t row) {
            return RowTileOut<bf16_t>{static_cast<bf16_t*>(p.o) + row * lv, lv, p.lse + row, 1};
          });
        }
      }
    }
  }
}

template <class Q, class KV, int kRowTiles>
__global__ void __launch_bounds__(kAttentionThreads,
                                  (RowGroupAttention<Q, KV, kRowTiles, kPersistentFp8Products>::G::kBlocksPerCu))
    persistent_decode_kernel(PersistentParams p) {
  using Attention = RowGroupAttention<Q, KV, kRowTiles, kPersistentFp8Products>;
  extern __shared__ Chunk16 dynamic_shared[];
  auto& shared = *reinterpret_cast<typename Attention::Shared*>(dynamic_shared);
  walk_work_list<Attention, Q, kRowTiles>(p, shared);
}

}  // namespace mlacheck::kernels
