#pragma once
// The device pointers the hip pipeline runs on: one problem's tensors in the engine layouts of
// include/mlacheck/backend_abi.h, wherever they were staged -- by the built-in backend's own
// MlaDecodeStaging, or by the harness that loaded the hip plugin.
#include <cstdint>

#include "core/mla_problem.hpp"
#include "device/staging/mla_decode_staging.hpp"
#include "mlacheck/backend_abi.h"

namespace mlacheck {

struct StagedMlaTensors {
  const void* q = nullptr;                    // [total_q_tokens, heads, Lk], q_dtype
  const void* kv_cache = nullptr;             // [num_blocks, block_size, Lk], kv_dtype
  const std::int32_t* block_table = nullptr;  // [batch, block_table_stride], -1 past a request's blocks
  int block_table_stride = 0;                 // >= max_blocks_per_request
  const std::int32_t* kv_lens = nullptr;      // [batch]
  const std::int32_t* qo_indptr = nullptr;    // [batch + 1]
  void* o = nullptr;                          // [total_q_tokens, heads, Lv], o_dtype
  float* lse = nullptr;                       // [total_q_tokens, heads], natural log
};

// The staging's device tensors.
StagedMlaTensors staged_tensors(MlaDecodeStaging& staging);

// The ABI's views, checked against what the kernels read: every dtype and shape p implies, dense
// rows (strides as backend_abi.h's row-major layouts; the block table may have a longer row
// stride) and no null pointer. std::invalid_argument names the tensor and the field otherwise.
StagedMlaTensors staged_tensors(const mlacheck_mla_tensors& t, const MlaDecodeProblem& p);

}  // namespace mlacheck
