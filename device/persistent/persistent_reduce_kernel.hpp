#pragma once
// The persistent path's reduce: merges the partial rows of every split q tile by log-sum-exp
// (lse_merge.hpp, natural log) into the final O and LSE. Reduce tile i (reduce_final_map[i]: final
// rows qo_start .. qo_end) has partials reduce_partial_map[reduce_indptr[i] .. [i + 1]), each the
// partial_qo_loc of one piece; row qo_start + k of the tile is partial row loc + k of each piece.
// Pieces whose rows saw nothing carry LSE -inf and are skipped.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>

#include "device/kernels/lse_merge.hpp"
#include "device/planner/plan_layout.hpp"
#include "device/platform/warp_reduce.hpp"

namespace mlacheck::kernels {

struct ReduceParams {
  const MetadataHeader* header;  // work_meta_data: how many reduce tiles the plan used
  const std::int32_t* reduce_indptr;
  const FinalTile* reduce_final_map;
  const std::int32_t* reduce_partial_map;
  const float* partial_o;    // [partial rows, padded_heads, lv]
  const float* partial_lse;  // [partial rows, padded_heads]
  void* o;                   // [total_q_tokens, padded_heads, lv], o dtype
  float* lse;                // [total_q_tokens, padded_heads]
  int padded_heads;
  int lv;
  int tile_rows;      // blocks per reduce tile: the most tokens a q tile holds x padded_heads
  int weight_floats;  // dynamic shared memory: weight_floats weights, then as many partial rows
};

// One block per (reduce tile, token of the tile, head); blocks past what the plan used return.
template <class O>
__global__ void __launch_bounds__(kMergeThreads) persistent_reduce_kernel(ReduceParams p) {
  extern __shared__ float reduce_shared[];
  __shared__ float scratch[gpu::kBlockReduceSlots];
  const int tid = static_cast<int>(threadIdx.x);
  const int tile = static_cast<int>(blockIdx.x) / p.tile_rows;
  const int packed = static_cast<int>(blockIdx.x) % p.tile_rows;
  if (tile >= p.header->reduce_tiles) return;
  const FinalTile final_tile = p.reduce_final_map[tile];
  const int k = packed / p.padded_heads;
  const int h = packed % p.padded_heads;
  if (k >= final_tile.qo_end - final_tile.qo_start) return;

  const std::int32_t first = p.reduce_indptr[tile];
  const int n = p.reduce_indptr[tile + 1] - first;
  auto* rows = reinterpret_cast<std::int32_t*>(reduce_shared + p.weight_floats);
  for (int i = tid; i < n; i += kMergeThreads) rows[i] = p.reduce_partial_map[first + i] + k;
  __syncthreads();

  const std::int64_t out_row = std::int64_t{final_tile.qo_start + k} * p.padded_heads + h;
  const auto partial_row = [&](int i) { return std::int64_t{rows[i]} * p.padded_heads + h; };
  merge_partials(
      n, p.lv, [&](int i) { return p.partial_lse[partial_row(i)]; },
      [&](int i, int c) { return p.partial_o[partial_row(i) * p.lv + c]; }, static_cast<O*>(p.o) + out_row * p.lv,
      p.lse + out_row, reduce_shared, scratch);
}

}  // namespace mlacheck::kernels
