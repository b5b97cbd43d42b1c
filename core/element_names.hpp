#pragma once
// Names an element of an op's output by its coordinates instead of its flat index, for reasons,
// reports and verdicts: "request 3, query token 0, head 17, channel 130".
#include "core/compare.hpp"
#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

// mla_decode's O [total_q_tokens, heads, Lv]: row qo_indptr[r] + i is query token i of request r;
// heads are the rank's (0 .. heads(p) - 1, as O holds them).
ElementNamer mla_o_element_names(const MlaDecodeProblem& p);
// mla_decode's LSE [total_q_tokens, heads]: the same without the channel.
ElementNamer mla_lse_element_names(const MlaDecodeProblem& p);
// kv_gather's K and V [total_tokens, kv_heads, head_size]: row cu_seq_lens[r] + t is token t of
// request r.
ElementNamer kv_gather_element_names(const KvGatherProblem& p);

}  // namespace mlacheck
