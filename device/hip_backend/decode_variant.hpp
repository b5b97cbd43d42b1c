#pragma once
// Which kernel variant a decode step is dispatched to, and the shape it then sees. Correctly the
// variant is the page-size-1 kernel on the token form of the table, and the shape the problem
// itself: a request's query tokens stay tokens, each with its own causal view. Two historic
// mistakes change that here. Plain host code, so the rules are tested without a GPU.
//
// Fault tokens-folded-into-heads (UPSTREAM R9: aiter #5679, vLLM #55609) puts back a dispatcher
// that looks a kernel variant up by the rows of one request, q_len x heads, as if they were heads:
// where those rows number kFoldedVariantHeads (16 heads at q_len 8, vLLM's spec_decode_medium), it
// picks the one-token variant built for that many heads. q [tokens, heads, Lk] is contiguous per
// request, so the variant reads each request as one token of q_len x heads heads and writes O and
// LSE back in place -- but every one of those rows sees the request's whole kv: the causal rule
// between the request's tokens is lost, so all rows but the last attend to tokens after them.
// q_len 2 (32 rows) finds no such variant and stays right, as upstream saw.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/mla_problem.hpp"
#include "device/faults.hpp"

namespace mlacheck {

// Fault kernel-ignores-page-size (UPSTREAM R8, aiter #2996 / #3095): the engine believes the
// kernel loaded for bf16 q and cache takes pages of 16, 32, 64 or 128 tokens and hands it the
// page form of the table (layout::KvIndexForm::pages: kv_indptr in pages, one block id per page),
// while it is the page-size-1 variant, which reads the page counts as token counts and the block
// ids as token slots. True when the fault is on and p is such a case. (S3, block-table-unexpanded,
// is the engine's side: token counts kept, but block ids where slots belong.)
bool kernel_reads_pages_as_tokens(const MlaDecodeProblem& p, const FaultSet& faults);
// Prefix sums of the requests' page counts ceil(kv_len / block_size): kv_indptr of the page form,
// which the persistent planner then plans over.
std::vector<std::int32_t> paged_kv_indptr(const MlaDecodeProblem& p);

// The head count of the one-token variant upstream's lookup landed on (aiter's gqa-128 kernel).
inline constexpr int kFoldedVariantHeads = 128;

// With the fault on, for a batch whose requests all share one q_len > 1 and whose padded heads x
// q_len equal kFoldedVariantHeads: the problem the folded dispatch runs -- one query token per
// request, q_len x padded_heads(p) heads per rank, everything else p's. Otherwise nullopt.
std::optional<MlaDecodeProblem> folded_decode_problem(const MlaDecodeProblem& p, const FaultSet& faults);

}  // namespace mlacheck
