#pragma once
// Cases derived from a case, for the metamorphic properties: each edit changes how the problem is
// stored or split while the mathematics of every query row stays the same.
#include <cstdint>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

struct MlaCase {
  MlaDecodeProblem problem;
  MlaDecodeInputs inputs;
};

// The same tokens stored in a pool of `block_size` blocks (the spare-block count kept), dealt to
// the requests in the order of a permutation drawn from table_seed; every other slot holds NaN.
// With the problem's own block size this only moves blocks and renames them in the table.
MlaCase repage(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int block_size, std::uint64_t table_seed);

// Every query token as its own single-token request: token t of a request with q_len tokens
// becomes a decode over kv_len - (q_len - 1 - t) tokens through the same table row. Requests now
// share blocks, which validate() does not count, so the pool grows by NaN blocks nobody reads.
MlaCase single_token_requests(const MlaDecodeProblem& p, const MlaDecodeInputs& in);

// The model's problem before tensor parallelism: tp = 1, so one rank owns all total_heads.
MlaDecodeProblem unsharded(const MlaDecodeProblem& p);

// The problem a kernel sees after head padding: padded_heads(p) heads on one rank, with q padded
// by pad_heads and the same cache.
MlaCase head_padded(const MlaDecodeProblem& p, const MlaDecodeInputs& in);

}  // namespace mlacheck
