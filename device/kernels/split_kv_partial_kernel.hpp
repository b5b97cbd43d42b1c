#pragma once
// Stage 1 of the split-KV MLA decode: one block per (query token, 16-head tile, split) attends the
// head tile (head_tile_attention.hpp) to its split's share of the token's visible KV range and
// writes a partial O (fp32, normalised by its own sum) and a partial LSE (natural log).
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>

#include "device/kernels/head_tile_attention.hpp"
#include "device/kernels/split_kv_plan.hpp"

namespace mlacheck::kernels {

struct PartialParams {
  HeadTileParams tile;
  const void* q;                   // [total_q_tokens, padded_heads, lk], q dtype
  const std::int32_t* kv_indices;  // flat slot of each request's tokens, from kv_indptr[b]
  const std::int32_t* kv_indptr;   // [batch + 1]
  const std::int32_t* qo_indptr;   // [batch + 1]
  float* partial_o;                // [total_q_tokens, padded_heads, num_splits, lv]
  float* partial_lse;              // [total_q_tokens, padded_heads, num_splits]
  int batch;
  int padded_heads;
  int num_splits;
  // Fault non-pow2-qlen-rows-collapse (UPSTREAM S4): for a q_len that is not a power of two, every
  // query row of a request is computed as its last row, so all rows carry that row's output.
  bool collapse_non_pow2_rows;
};

namespace partial {

// The request holding query token `token`: the last b with qo_indptr[b] <= token.
__device__ inline int request_of(const std::int32_t* qo_indptr, int batch, int token) {
  int lo = 0;
  int hi = batch - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (qo_indptr[mid] <= token) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace partial

template <class Q, class KV, int kValueTile>
__global__ void __launch_bounds__(kHeadTileThreads) split_kv_partial_kernel(PartialParams p) {
  __shared__ HeadTileShared<kValueTile> shared;
  const int tid = static_cast<int>(threadIdx.x);
  const int head_tiles = p.padded_heads / kHeadTile;
  const int token = static_cast<int>(blockIdx.x) / head_tiles;
  const int head0 = static_cast<int>(blockIdx.x) % head_tiles * kHeadTile;
  const int split = static_cast<int>(blockIdx.y);
  const int lk = p.tile.lv + p.tile.rope;

  // The token's visible range (causal, aligned bottom-right) and this split's share of it. Splits
  // cut the request's whole KV range in kKvTile-aligned pieces, so a row that sees fewer tokens
  // than the request holds can find its last splits empty.
  const int b = partial::request_of(p.qo_indptr, p.batch, token);
  const int kv_begin = p.kv_indptr[b];
  const int kv_len = p.kv_indptr[b + 1] - kv_begin;
  const int q_len = p.qo_indptr[b + 1] - p.qo_indptr[b];
  const bool collapse = p.collapse_non_pow2_rows && (q_len & (q_len - 1)) != 0;
  const int row = collapse ? q_len - 1 : token - p.qo_indptr[b];  // the query row attended
  const int visible = kv_len - q_len + row + 1;
  const int per_split = ((kv_len + p.num_splits - 1) / p.num_splits + kKvTile - 1) / kKvTile * kKvTile;
  const std::int64_t begin = std::int64_t{split} * per_split;
  const std::int64_t end = begin + per_split < visible ? begin + per_split : visible;

  const std::int64_t row0 = std::int64_t{token} * p.padded_heads + head0;  // (token, head0) row
  float* lse_out = p.partial_lse + row0 * p.num_splits + split;            // head h at [h * num_splits]
  if (begin >= end) {
    // Nothing visible in this split: the merge skips an LSE of -inf and never reads its O.
    if (tid < kHeadTile) lse_out[tid * p.num_splits] = head_tile::kMinusInf;
    return;
  }

  const std::int64_t q_row0 = std::int64_t{p.qo_indptr[b] + row} * p.padded_heads + head0;
  const Q* q_rows = static_cast<const Q*>(p.q) + q_row0 * lk;
  const auto state = attend_head_tile<Q, KV>(shared, p.tile, q_rows, p.kv_indices + kv_begin + begin, end - begin);
  const std::int64_t head_stride = std::int64_t{p.num_splits} * p.tile.lv;
  write_head_tile(
      shared, state, p.tile.value_scale,
      HeadTileOut<float>{p.partial_o + (row0 * p.num_splits + split) * p.tile.lv, head_stride, lse_out, p.num_splits});
}

}  // namespace mlacheck::kernels
