#pragma once
// The persistent MLA decode kernel: one block per resident block slot (the planner's num_cus)
// walks its work list work_info_set[work_indptr[slot] .. [slot + 1]). A work item is (request,
// q tile, kv range) for every padded head (plan_layout.hpp); the block attends each (token, head
// tile) of the q tile to the part of the item's kv range the token sees, with the head-tile
// machinery split-KV uses. Unsplit items (partial_qo_loc = -1) write the final O and LSE; items
// of a split tile write fp32 partial rows at partial_qo_loc that the reduce kernel merges.
//
// Causal rule from the item alone: query token r sees flat kv positions
//   j < kv_end + kv_offset - (last token of the request - r)
// so a row of a later piece of a split tile can see none of the piece's range. It then gets
// O = 0, LSE = -inf, which the merge ignores.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>

#include "core/dtype_convert.hpp"
#include "device/kernels/head_tile_attention.hpp"
#include "device/planner/plan_layout.hpp"

namespace mlacheck::kernels {

static_assert(kHeadTile == mlacheck::kHeadTile && kKvTile == mlacheck::kKvGranule,
              "the planner's head tile and kv granule are the kernel's tiles");

struct PersistentParams {
  HeadTileParams tile;
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

namespace persistent {

// Calls f(HeadTileOut<...>) for the head tile at packed row `row0` (row * padded_heads + head0):
// fp32 partial rows for a split item, the final O in its dtype otherwise.
template <class F>
__device__ void with_head_tile_out(const PersistentParams& p, bool split, std::int64_t row0, F&& f) {
  const int lv = p.tile.lv;
  if (split) {
    f(HeadTileOut<float>{p.partial_o + row0 * lv, lv, p.partial_lse + row0, 1});
  } else if (p.o_f16) {
    f(HeadTileOut<f16_t>{static_cast<f16_t*>(p.o) + row0 * lv, lv, p.lse + row0, 1});
  } else {
    f(HeadTileOut<bf16_t>{static_cast<bf16_t*>(p.o) + row0 * lv, lv, p.lse + row0, 1});
  }
}

// A head tile that saw no kv token: O = 0, LSE = -inf.
template <class Out>
__device__ void write_empty_head_tile(int lv, const HeadTileOut<Out>& out) {
  const int tid = static_cast<int>(threadIdx.x);
  for (int i = tid; i < kHeadTile * lv; i += kHeadTileThreads) {
    out.o[i / lv * out.o_head_stride + i % lv] = from_float<Out>(0.0f);
  }
  if (tid < kHeadTile) out.lse[tid * out.lse_head_stride] = head_tile::kMinusInf;
}

}  // namespace persistent

template <class Q, class KV, int kValueTile>
__global__ void __launch_bounds__(kHeadTileThreads) persistent_decode_kernel(PersistentParams p) {
  __shared__ HeadTileShared<kValueTile> shared;
  const int lk = p.tile.lv + p.tile.rope;
  const std::int32_t first = p.work_indptr[blockIdx.x];
  const std::int32_t last = p.work_indptr[blockIdx.x + 1];
  // Every branch below depends on the item only, so the whole block takes it together and the
  // barriers inside the head-tile functions are reached by all threads.
  for (std::int32_t w = first; w < last; ++w) {
    const WorkItem item = p.work_items[w];
    const bool split = item.partial_qo_loc >= 0;
    const std::int32_t request_last_token = p.qo_indptr[item.batch + 1] - 1;
    for (std::int32_t token = item.qo_start; token < item.qo_end; ++token) {
      const std::int64_t horizon = std::int64_t{item.kv_end} + item.kv_offset - (request_last_token - token);
      const std::int64_t n_tokens = (horizon < item.kv_end ? horizon : std::int64_t{item.kv_end}) - item.kv_start;
      const std::int32_t out_row = split ? item.partial_qo_loc + (token - item.qo_start) : token;
      for (int head0 = 0; head0 < p.padded_heads; head0 += kHeadTile) {
        const std::int64_t row0 = std::int64_t{out_row} * p.padded_heads + head0;
        if (n_tokens <= 0) {
          persistent::with_head_tile_out(p, split, row0,
                                         [&](const auto& out) { persistent::write_empty_head_tile(p.tile.lv, out); });
          continue;
        }
        const Q* q_rows = static_cast<const Q*>(p.q) + (std::int64_t{token} * p.padded_heads + head0) * lk;
        const auto state = attend_head_tile<Q, KV>(shared, p.tile, q_rows, p.kv_indices + item.kv_start, n_tokens);
        persistent::with_head_tile_out(
            p, split, row0, [&](const auto& out) { write_head_tile(shared, state, p.tile.value_scale, out); });
      }
    }
  }
}

}  // namespace mlacheck::kernels
