#pragma once
// Decode sequences (issue 13 item 3): an mla_decode problem with steps > 1 is a session of `steps`
// decode steps run the way an engine replays a captured CUDA graph:
//   - the batch is a fixed set of request slots (the captured batch size); request r occupies its
//     slot from step joins[r] up to (not including) step leaves[r], and the slot is a padded row
//     (kv_len 0, its table row all -1) before and after;
//   - q_lens[r] query tokens per step, the same every step (the captured q_len); each step appends
//     them to the request's cache, so its kv_len at step s is kv_lens[r] + (s - joins[r]) * q_lens[r]
//     (kv_lens[r]: its cached tokens at its first step, that step's own tokens included);
//   - the cache pool (num_blocks) is shared by the whole sequence and sized for its busiest step;
//     blocks are handed out from a free list as requests grow and returned when they leave, so a
//     joining request is given blocks that still hold a departed request's tokens (an engine does
//     not clear freed blocks);
//   - the backend keeps its buffers and its persistent plan across the steps (backend.hpp's
//     begin_sequence), and every step is judged against the oracle.
// sequence_step(p, s) is step s as a one-step problem; core/mla_sequence_inputs.hpp writes its
// inputs. A one-step problem (steps 1) is not a sequence: joins and leaves are then empty.
#include <cstdint>
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

bool is_sequence(const MlaDecodeProblem& p);  // steps > 1
// Per request: the first step it takes part in, and the first step it no longer does (joins[r] ==
// leaves[r]: a slot that is padding at every step). Empty joins mean 0, empty leaves `steps`.
int join_step(const MlaDecodeProblem& p, int request);
int leave_step(const MlaDecodeProblem& p, int request);
bool active_at(const MlaDecodeProblem& p, int request, int step);
// Request r's cached tokens at step s, the step's new tokens included; 0 where it is not active.
int kv_len_at(const MlaDecodeProblem& p, int request, int step);
// Its largest length over the sequence (0 for a slot that is never active).
int final_kv_len(const MlaDecodeProblem& p, int request);

// Step s of the sequence as a one-step problem: steps 1, joins and leaves empty, kv_lens as
// kv_len_at (0 for padded slots), every other field -- num_blocks and first_block included -- the
// sequence's. Throws std::out_of_range naming the step when s is not in [0, steps).
MlaDecodeProblem sequence_step(const MlaDecodeProblem& p, int step);

// Blocks the requests hold at once at the busiest step (each active request holds
// ceil(kv_len / block_size) blocks): the pool a sequence needs from first_block on.
int sequence_peak_blocks(const MlaDecodeProblem& p);
// The longest block-table row any step has: the row stride of a table captured once.
int sequence_max_blocks_per_request(const MlaDecodeProblem& p);

// Every slot at its final length, all active at once: one-step problem that bounds every step's
// lengths, for sizing what lives across steps (a backend's intermediates and persistent plan under
// CUDA-graph capture). Its num_blocks is the sequence's pool, which may be fewer blocks than its
// requests would hold at once, so validate() may refuse it: size with it, never run it.
MlaDecodeProblem sequence_capacity(const MlaDecodeProblem& p);

// The validation a sequence adds to a one-step problem's (called from validate(); InvalidProblem
// names the field): steps in [2, 64]; joins and leaves empty or one per request, with
// 0 <= join <= leave <= steps; a request that is ever active starts with kv_len >= q_len >= 1,
// and a slot that never is has kv_len 0; every step has a request holding a token; no request
// grows past 2^24 tokens. For steps 1: joins and leaves must be empty.
void validate_sequence(const MlaDecodeProblem& p);

}  // namespace mlacheck
