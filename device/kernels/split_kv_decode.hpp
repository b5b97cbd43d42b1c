#pragma once
// The split-KV MLA decode launcher (UPSTREAM's non-persistent path): stage 1 over (request, row
// group of query tokens x 16-head tiles, split) writes partial O and LSE, stage 2 merges them by log-sum-exp. Inputs are
// the device-side layout after head padding and page expansion (page size 1). Plain C++: no GPU
// types, so host code (the backend, the tests) calls it without the GPU compiler.
#include <cstdint>

#include "core/dtype.hpp"
#include "device/faults.hpp"
#include "device/kernels/split_kv_plan.hpp"
#include "device/platform/stream_handle.hpp"

namespace mlacheck::kernels {

// Device pointers (sizes from shape; T = total_q_tokens, Hp = padded_heads, Lk = lv + rope).
struct SplitKvArgs {
  SplitKvShape shape;
  const void* q = nullptr;                   // [T, Hp, Lk] in q_dtype
  const void* kv_cache = nullptr;            // [slots, Lk] in kv_dtype (codes; value = code * kv_scale)
  const std::int32_t* kv_indices = nullptr;  // flat slot of token pos of request b at kv_indptr[b] + pos
  const std::int32_t* kv_indptr = nullptr;   // [batch + 1]
  const std::int32_t* qo_indptr = nullptr;   // [batch + 1]
  float* partial_o = nullptr;                // workspace: split_kv_workspace(shape).partial_o_floats
  float* partial_lse = nullptr;              // workspace: split_kv_workspace(shape).partial_lse_floats
  void* o = nullptr;                         // [T, Hp, Lv] in o_dtype
  float* lse = nullptr;                      // [T, Hp], natural log
  // tile-width-from-lk (the dispatch); non-pow2-qlen-rows-collapse, empty-split-unwritten,
  // lengths-indexed-by-query-row, cache-offset-32bit and the precision faults (stage 1, its row-group attention);
  // empty-rows-unwritten and split-kv-lse-unwritten (stage 2)
  FaultSet faults;
  // Fault padded-fp8-single-request (UPSTREAM R6), which the caller switches on only for the
  // regime it lived in (heads padded to 16, fp8 cache): stage 1 reads every request's kv from
  // request 0's start, right for a batch of one.
  bool kv_of_first_request = false;
  // Keeps stage 1 on the portable kernel where the Hopper one would take the launch (the tests
  // hold the two against each other).
  bool portable_kernels = false;
};

// The row tiles (16 padded heads of one query token each) stage-1 blocks hold on this build's GPU
// for these dtypes, and how many share a CU: the policy of split_kv_num_splits and row_groups.
RowTilePolicy split_kv_row_tile_policy(DType q_dtype, DType kv_dtype);

// Whether stage 1 of this launch runs on the Hopper warpgroup kernel (split_kv_wgmma_kernel.hpp):
// the shape, tiles and faults fit it (wgmma_dispatch.hpp), the current device loaded code built
// for sm_90a, and portable_kernels is off. False on every other build and device.
bool split_kv_takes_wgmma(const SplitKvArgs& args);

// Enqueues both stages on `stream`. Throws std::invalid_argument for a shape that
// split_kv_unsupported() refuses or a missing pointer (nothing is launched), and GpuError when a
// launch fails. Requests must satisfy 1 <= q_len <= kv_len (validate() guarantees it).
void launch_mla_decode_split_kv(const SplitKvArgs& args, StreamHandle stream = nullptr);

}  // namespace mlacheck::kernels
