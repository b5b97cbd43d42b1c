#pragma once
// Stage 2 of the split-KV MLA decode: merges each (token, head) row's num_splits partials by
// log-sum-exp (lse_merge.hpp) and writes O in the output dtype and LSE in fp32.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>

#include "device/kernels/lse_merge.hpp"
#include "device/platform/warp_reduce.hpp"

namespace mlacheck::kernels {

struct MergeParams {
  const float* partial_o;    // [rows, num_splits, lv]
  const float* partial_lse;  // [rows, num_splits]
  void* o;                   // [rows, lv], o dtype
  float* lse;                // [rows]
  int lv;
  int num_splits;
  // Fault empty-rows-unwritten (UPSTREAM R1): a row that saw no token (a padded request's) gets
  // LSE -inf, but its O is never written.
  bool empty_rows_o_unwritten;
  // Fault split-kv-lse-unwritten (UPSTREAM R7): the LSE the caller asked for is never written.
  bool lse_unwritten;
};

// One block per row (token, head); dynamic shared memory holds num_splits weights (the launcher
// rounds it up to whole 16-byte granules).
template <class O>
__global__ void __launch_bounds__(kMergeThreads) split_kv_merge_kernel(MergeParams p) {
  extern __shared__ float split_weight[];
  __shared__ float scratch[gpu::kBlockReduceSlots];
  const std::int64_t row = blockIdx.x;
  const float* lse_in = p.partial_lse + row * p.num_splits;
  const float* o_in = p.partial_o + row * p.num_splits * p.lv;
  merge_partials(
      p.num_splits, p.lv, [&](int i) { return lse_in[i]; },
      [&](int i, int c) { return o_in[std::int64_t{i} * p.lv + c]; }, static_cast<O*>(p.o) + row * p.lv,
      p.lse_unwritten ? nullptr : p.lse + row, split_weight, scratch, !p.empty_rows_o_unwritten);
}

}  // namespace mlacheck::kernels
