#pragma once
// Host inputs of a kv_gather problem: one pool buffer holding K and V at the problem's strides.
#include <cstdint>
#include <vector>

#include "core/gather_problem.hpp"

namespace mlacheck {

struct KvGatherInputs {
  // cache_elements(p) values of cache_dtype; addresses no (block, head, token, channel) maps to
  // (padding between blocks or heads) hold NaN, and so do the tails of partially used blocks.
  std::vector<float> cache;
  std::vector<std::int32_t> block_table;  // [batch, block_table_stride], -1 past a request's blocks
  int block_table_stride = 0;
};

// Deterministic from (seed, fill mode). K of (request r, position pos, head h, channel c) is
// element ((cu_seq_lens[r] + pos)*kv_heads + h)*head_size + c of the seeded tensor "k" (fill.hpp),
// V the same of "v": the seeded tensors are the expected gathered outputs, and the values do not
// depend on layout, strides, block_size or the block permutation. The block table deals
// "block_table", a permutation of [0, num_blocks), to requests in order. Codes are uniform in
// [-1/scale, 1/scale) rounded to cache_dtype (scale: k_scale or v_scale, 1 unless dequantising);
// exact mode: integers in [-2, 2].
KvGatherInputs make_inputs(const KvGatherProblem& p);

// Gathered K and V, [total_tokens, kv_heads, head_size] each, values of out_dtype.
template <class T>
struct KvGatherOutputs {
  std::vector<T> k;
  std::vector<T> v;
};

}  // namespace mlacheck
