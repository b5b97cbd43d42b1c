#pragma once
// Host inputs of an mla_decode problem, all derived from its descriptor (so the repro string
// alone replays a case). Values are held as floats that are exactly values of the problem's
// dtypes; the device layer encodes them bit-exactly with dtype_convert.hpp.
#include <cstdint>
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

struct MlaDecodeInputs {
  // [total_q_tokens, heads, Lk]: this rank's heads (the rank's slice of the model's q, so that
  // the ranks of one model together see one q of total_heads heads), values of q_dtype.
  std::vector<float> q;
  // [num_blocks, block_size, Lk]: cache codes of kv_dtype (multiply by kv_scale for the value).
  // Slots no request uses (block tails, spare blocks) hold NaN so a kernel reading past kv_len
  // poisons its output instead of passing by luck.
  std::vector<float> kv_cache;
  // [batch, block_table_stride]: a random permutation of the pool's blocks dealt to requests in
  // order; entries past a request's blocks hold -1.
  std::vector<std::int32_t> block_table;
  int block_table_stride = 0;
};

// Deterministic from (seed, fill mode). Tensor names for seeding: "q" (over total_heads, then
// sliced to the rank), "kv", "block_table".
MlaDecodeInputs make_inputs(const MlaDecodeProblem& p);

// Reference outputs (double) and device outputs (float, as decoded from o_dtype) share a shape:
// O [total_q_tokens, heads, Lv], LSE [total_q_tokens, heads] in natural log.
template <class T>
struct MlaDecodeOutputs {
  std::vector<T> o;
  std::vector<T> lse;
};

}  // namespace mlacheck
