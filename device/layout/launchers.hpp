#pragma once
// Host launchers of the layout kernels: check their arguments (std::invalid_argument naming the
// argument, nothing launched), enqueue on `stream`, and check the launch (GpuError). Plain C++:
// the backend's .cpp files call them.
#include <cstdint>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "device/layout/kv_gather.hpp"
#include "device/layout/page_indices.hpp"
#include "device/faults.hpp"
#include "device/platform/stream_handle.hpp"

namespace mlacheck::layout {

// indptr[0] = 0, indptr[i + 1] = lengths[0] + ... + lengths[i] for i < count: kv_indptr from
// kv_lens, or cu_seq_lens for kv_gather. The sums must fit int32 (core's validate() ensures it).
// With unit > 1 each length counts ceil(length / unit) units: pages of `unit` tokens.
void launch_lengths_to_indptr(const std::int32_t* lengths, int count, std::int32_t* indptr, StreamHandle stream,
                              int unit = 1);

// kv_indptr (through launch_lengths_to_indptr) then kv_indices, in the token form or the page
// form (page_indices.hpp). `faults` may switch block-table-unexpanded on.
void launch_expand_page_indices(const MlaDecodeProblem& p, const PageIndexBuffers& buffers, StreamHandle stream,
                                const FaultSet& faults = {}, KvIndexForm form = KvIndexForm::tokens);

// q [total_q_tokens, heads, Lk] of q_dtype -> q_padded [total_q_tokens, padded_heads, Lk].
void launch_pad_q_heads(const MlaDecodeProblem& p, const void* q, void* q_padded, StreamHandle stream);
// o_padded [total_q_tokens, padded_heads, Lv] of o_dtype -> o [total_q_tokens, heads, Lv].
void launch_unpad_o_heads(const MlaDecodeProblem& p, const void* o_padded, void* o, StreamHandle stream);
// lse_padded [total_q_tokens, padded_heads] -> lse [total_q_tokens, heads], fp32.
void launch_unpad_lse_heads(const MlaDecodeProblem& p, const float* lse_padded, float* lse, StreamHandle stream);

// See kv_gather.hpp. `faults` may switch the stride faults on (cache_geometry.hpp).
void launch_kv_gather(const KvGatherProblem& p, const KvGatherBuffers& buffers, StreamHandle stream,
                      const FaultSet& faults = {});

}  // namespace mlacheck::layout
