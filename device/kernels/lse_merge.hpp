#pragma once
// The log-sum-exp merge of one (token, head) row's partials, shared by split-KV stage 2 and the
// persistent path's reduce kernel (natural log):
//   m = max lse_i;  w_i = exp(lse_i - m);  O = sum w_i O_i / sum w_i;  LSE = m + log(sum w_i).
// A partial with LSE -inf saw nothing: it is skipped, its O never read, so it contributes nothing
// and cannot bring in NaN. A NaN LSE is not skipped: it poisons the row, as the NaN input behind
// it should. A row with no visible partial at all gets O = 0, LSE = -inf.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>
#include <limits>

#include "core/dtype_convert.hpp"
#include "device/platform/warp_reduce.hpp"

namespace mlacheck::kernels {

// A multiple of every warp width (block reductions need whole warps).
inline constexpr int kMergeThreads = 128;

// Weight stored for a partial that saw nothing; every real weight is >= 0 or NaN.
inline constexpr float kEmptySplit = -1.0f;

// Merges n partials: lse_at(i) is partial i's LSE, o_at(i, c) column c of its O. Writes lv values
// of O at o_out and the LSE at *lse_out. Called by all kMergeThreads threads of the block;
// `weight` is shared memory of n floats (whole 16-byte granules: ptxas merges the loop's guarded
// tail reads into one wider load from the granule's start), `scratch` of gpu::kBlockReduceSlots.
// Only the faults of split-KV stage 2 pass a null lse_out (R7: no LSE written) or
// write_empty_o = false (R1: a row with no visible partial keeps whatever its O held).
template <class O, class LseAt, class OAt>
__device__ void merge_partials(int n, int lv, LseAt lse_at, OAt o_at, O* o_out, float* lse_out, float* weight,
                               float* scratch, bool write_empty_o = true) {
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  const int tid = static_cast<int>(threadIdx.x);

  float local_max = kMinusInf;
  for (int i = tid; i < n; i += kMergeThreads) local_max = fmaxf(local_max, lse_at(i));
  const float m = gpu::block_max(local_max, scratch);

  float local_sum = 0.0f;
  for (int i = tid; i < n; i += kMergeThreads) {
    const float l = lse_at(i);
    const float w = l == kMinusInf ? kEmptySplit : expf(l - m);
    weight[i] = w;
    if (w != kEmptySplit) local_sum += w;
  }
  const float w_sum = gpu::block_sum(local_sum, scratch);  // its barriers publish weight
  const bool nothing_visible = w_sum == 0.0f;

  for (int c = tid; c < lv && (write_empty_o || !nothing_visible); c += kMergeThreads) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
      const float w = weight[i];
      if (w != kEmptySplit) acc += w * o_at(i, c);
    }
    o_out[c] = from_float<O>(nothing_visible ? 0.0f : acc / w_sum);
  }
  if (tid == 0 && lse_out != nullptr) *lse_out = nothing_visible ? kMinusInf : m + logf(w_sum);
}

}  // namespace mlacheck::kernels
