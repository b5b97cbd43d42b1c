#pragma once
// The host side of a decode sequence (core/mla_sequence.hpp), advanced one step at a time as an
// engine's block manager and KV writer advance it:
//   1. the blocks of requests that left at this step go back to the free list;
//   2. each active request, in slot order, takes blocks from the free list until it holds
//      ceil(kv_len / block_size) of them (the free list starts as a seeded permutation of
//      [first_block, num_blocks) and hands out the block returned last, so a joiner reuses a
//      departed request's blocks, stale tokens and all);
//   3. the step's new tokens are written to the pool: a joining request's kv_len tokens, every
//      other active request's q_len newest tokens;
//   4. the step's q is drawn.
// Values depend only on (seed, request, position) and (seed, step, query token), never on the
// blocks: the cached latent of request r at position pos is element (seq_offset[r] + pos) * Lk + c
// of the seeded tensor "kv" (seq_offset: prefix sums of final_kv_len), and q of step s, token t,
// rank-local head h is element ((s * T + t) * total_heads + tp_rank * heads + h) * Lk + c of "q"
// (T: the step's query tokens). Fill modes and profiles apply as in make_inputs. Slots never
// written hold NaN, like make_inputs's unused slots.
#include <cstdint>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

class MlaSequenceInputs {
 public:
  // `seq` with defaults applied; throws InvalidProblem when validate() refuses it. A one-step
  // problem is a sequence of one step.
  explicit MlaSequenceInputs(const MlaDecodeProblem& seq);

  const MlaDecodeProblem& sequence() const noexcept { return seq_; }
  int steps() const noexcept;
  // The step the inputs are at: -1 before the first advance().
  int step() const noexcept { return step_; }

  // Goes to step step() + 1; std::out_of_range past the last step.
  void advance();

  // The current step (valid after advance()): its one-step problem (sequence_step) and inputs in
  // make_inputs's layout -- q of the step, the pool as written so far, and the block table with
  // a row stride of the step's max_blocks_per_request.
  const MlaDecodeProblem& problem() const noexcept { return problem_; }
  const MlaDecodeInputs& inputs() const noexcept { return inputs_; }
  // Pool slots (block * block_size + offset) the step wrote, in the order written: what a
  // backend that keeps its cache across steps must copy in.
  const std::vector<std::int64_t>& written_slots() const noexcept { return written_; }
  // Blocks each request holds now (slot order; empty for a request not active).
  const std::vector<std::vector<std::int32_t>>& held_blocks() const noexcept { return held_; }

 private:
  void write_token(int request, int pos);
  void draw_q();
  void build_table();

  MlaDecodeProblem seq_;
  MlaDecodeProblem problem_;
  MlaDecodeInputs inputs_;
  int step_ = -1;
  std::vector<std::int64_t> seq_offset_;  // per request: its first token's index in "kv"
  std::vector<std::int32_t> free_;        // the free list; the back is handed out next
  std::vector<std::vector<std::int32_t>> held_;
  std::vector<std::int64_t> written_;
};

}  // namespace mlacheck
