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

KvGatherInputs make_inputs(const KvGatherProblem& p);

// Gathered K and V, [total_tokens, kv_heads, head_size] each, values of out_dtype.
template <class T>
struct KvGatherOutputs {
  std::vector<T> k;
  std::vector<T> v;
};

}  // namespace mlacheck
