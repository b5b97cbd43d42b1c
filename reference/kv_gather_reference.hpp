#pragma once
// KV gather, the host twin of the device gather kernel: K and V of every request's tokens, in
// order, from the paged pool into contiguous [total_tokens, kv_heads, head_size] buffers. Every
// cache address goes through cache_offset() and so through the problem's strides and layout
// (NHD or SHUFFLE, contiguous or hybrid-interleaved); nothing assumes a dense cache.
#include "core/gather_inputs.hpp"
#include "core/gather_problem.hpp"

namespace mlacheck {

// A copy when the cache is not dequantised. An fp8 cache gathered to bf16/f16 is dequantised as
// the kernel does it: the code's value times k_scale (v_scale) in float, rounded once to out_dtype.
// Throws std::invalid_argument when the inputs' sizes disagree with the problem or a request
// reads a block id outside [0, num_blocks).
KvGatherOutputs<float> kv_gather_reference(const KvGatherProblem& p, const KvGatherInputs& in);

}  // namespace mlacheck
