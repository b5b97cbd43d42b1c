#pragma once
// Stage 2 of the split-KV MLA decode: merges each (token, head) row's partials by log-sum-exp
// (natural log) and writes O in the output dtype and LSE in fp32:
//   m = max lse_i;  w_i = exp(lse_i - m);  O = sum w_i O_i / sum w_i;  LSE = m + log(sum w_i).
// A split with LSE -inf saw nothing: it is skipped, its O never read (stage 1 does not write it),
// so it contributes nothing and cannot bring in NaN. A NaN LSE is not skipped: it poisons the row,
// as the NaN input behind it should. A row with no visible split at all gets O = 0, LSE = -inf.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>
#include <limits>

#include "core/dtype_convert.hpp"
#include "device/platform/warp_reduce.hpp"

namespace mlacheck::kernels {

// A multiple of every warp width (block reductions need whole warps).
inline constexpr int kMergeThreads = 128;

struct MergeParams {
  const float* partial_o;    // [rows, num_splits, lv]
  const float* partial_lse;  // [rows, num_splits]
  void* o;                   // [rows, lv], o dtype
  float* lse;                // [rows]
  int lv;
  int num_splits;
};

// Weight stored for a split that saw nothing; every real weight is >= 0 or NaN.
inline constexpr float kEmptySplit = -1.0f;

// One block per row (token, head); dynamic shared memory holds num_splits weights (the launcher
// rounds it up to whole 16-byte granules).
template <class O>
__global__ void __launch_bounds__(kMergeThreads) split_kv_merge_kernel(MergeParams p) {
  extern __shared__ float split_weight[];
  __shared__ float scratch[gpu::kBlockReduceSlots];
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t row = blockIdx.x;
  const float* lse_in = p.partial_lse + row * p.num_splits;

  float local_max = kMinusInf;
  for (int i = tid; i < p.num_splits; i += kMergeThreads) local_max = fmaxf(local_max, lse_in[i]);
  const float m = gpu::block_max(local_max, scratch);

  float local_sum = 0.0f;
  for (int i = tid; i < p.num_splits; i += kMergeThreads) {
    const float l = lse_in[i];
    const float w = l == kMinusInf ? kEmptySplit : expf(l - m);
    split_weight[i] = w;
    if (w != kEmptySplit) local_sum += w;
  }
  const float w_sum = gpu::block_sum(local_sum, scratch);  // its barriers publish split_weight
  const bool nothing_visible = w_sum == 0.0f;

  const float* o_in = p.partial_o + row * p.num_splits * p.lv;
  O* o_out = static_cast<O*>(p.o) + row * p.lv;
  for (int c = tid; c < p.lv; c += kMergeThreads) {
    float acc = 0.0f;
    for (int i = 0; i < p.num_splits; ++i) {
      const float w = split_weight[i];
      if (w != kEmptySplit) acc += w * o_in[std::int64_t{i} * p.lv + c];
    }
    o_out[c] = from_float<O>(nothing_visible ? 0.0f : acc / w_sum);
  }
  if (tid == 0) p.lse[row] = nothing_visible ? kMinusInf : m + logf(w_sum);
}

}  // namespace mlacheck::kernels
