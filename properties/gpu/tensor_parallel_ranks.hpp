#pragma once
// The tensor-parallel ranks of one model on the GPUs, and their outputs joined in rank order.
#include <cstdint>
#include <span>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "device/backend.hpp"

namespace mlacheck {

// Rank r's inputs, from the model's (make_inputs of the problem with tp = 1): its slice of the
// heads of q, and the same cache and block table. make_inputs of the rank's problem gives the same
// (core/mla_inputs.hpp); slicing fills the model's tensors once instead of once per rank.
MlaDecodeInputs rank_inputs(const MlaDecodeProblem& p, const MlaDecodeInputs& model, int rank);

// Runs every rank 0..tp-1 of p's model (p with tp_rank = r) on rank_inputs. Rank r runs on
// devices[r % devices.size()]; each device runs its ranks in rank order on its own thread, so with
// several GPUs the ranks run concurrently and with one they run one after another. Results are in
// rank order; the first exception of any rank is rethrown.
std::vector<MlaDecodeRun> run_ranks(const MlaDecodeProblem& p, const MlaDecodeInputs& model,
                                    std::span<Backend* const> devices);

// The ranks' [tokens, heads, .] outputs placed at heads [r*heads, (r+1)*heads) of the model's
// [tokens, total_heads, .], with their unwritten flags placed alike.
struct JoinedRanks {
  MlaDecodeOutputs<float> out;
  std::vector<std::uint8_t> o_unwritten;
  std::vector<std::uint8_t> lse_unwritten;
};
JoinedRanks join_ranks(const MlaDecodeProblem& p, std::span<const MlaDecodeRun> ranks);

}  // namespace mlacheck
