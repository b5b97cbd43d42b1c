#pragma once
// Host inputs of an mla_decode problem, all derived from its descriptor (so the repro string
// alone replays a case). Values are held as floats that are exactly values of the problem's
// dtypes; the device layer encodes them bit-exactly with dtype_convert.hpp.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

struct MlaDecodeInputs {
  // [total_q_tokens, heads, Lk]: this rank's heads (the rank's slice of the model's q, so that
  // the ranks of one model together see one q of total_heads heads), values of q_dtype.
  std::vector<float> q;
  // [num_blocks - first_block, block_size, Lk]: cache codes of kv_dtype (multiply by kv_scale for
  // the value) of pool blocks [first_block, num_blocks); pool slot s is at host_cache_index(p, s).
  // Slots no request uses (block tails, spare blocks) hold NaN so a kernel reading past kv_len
  // poisons its output instead of passing by luck; the blocks below first_block are not held at
  // all (staging fills them with NaN codes on the backend's side).
  std::vector<float> kv_cache;
  // [batch, block_table_stride]: a random permutation of the pool's blocks [first_block,
  // num_blocks) dealt to requests in order; entries past a request's blocks hold -1.
  std::vector<std::int32_t> block_table;
  int block_table_stride = 0;
};

// Deterministic from (seed, fill mode). Which element of which seeded tensor (fill.hpp) each
// value is:
// - q of (token t, rank-local head h, channel c) is element (t*total_heads + tp_rank*heads + h)*Lk + c
//   of "q" [total_q_tokens, total_heads, Lk], so the ranks of one model slice one q;
// - the cached latent of (request r, position pos, channel c) is element (kv_indptr[r] + pos)*Lk + c
//   of "kv" [total kv tokens, Lk], written wherever the block table puts that token: what a
//   request reads does not depend on block_size, num_blocks or the block permutation;
// - the block table deals "block_table", a permutation of [first_block, num_blocks), to requests
//   in order.
// Random mode: q uniform in [-1, 1) rounded to q_dtype; cache codes uniform in
// [-1/kv_scale, 1/kv_scale) rounded to kv_dtype, so dequantised values stay within about [-1, 1)
// whatever the scale (fp8 saturates codes beyond its largest finite value).
// Exact mode: integers in [-2, 2] for q and for the cache codes.
// Profiles sink and extreme (random mode) shape the same noise per q row and per cached token
// (core/fill_profile.hpp): large logits with an attention sink, or latents at their dtype's extremes.
// threads: the requests are filled on up to that many threads (the bytes are the same for any).
MlaDecodeInputs make_inputs(const MlaDecodeProblem& p, int threads = 1);

// The two fills make_inputs is made of, for writers of other layouts (MlaSequenceInputs).
// fill_q_tokens: the q rows of consecutive query tokens [first_token, ...) of the seeded "q"
// tensor, as many as `q` holds ([tokens, heads, Lk], this rank's heads), in the problem's profile.
void fill_q_tokens(const MlaDecodeProblem& p, std::size_t first_token, std::span<float> q);
// fill_latents: the cache codes of consecutive positions [first_pos, ...) of one request whose
// position 0 is element `request_token` of the seeded "kv" tensor, as many as `latents` holds
// ([positions, Lk]), in the problem's profile.
void fill_latents(const MlaDecodeProblem& p, std::size_t request_token, int first_pos, std::span<float> latents);

// The index in MlaDecodeInputs::kv_cache of the first element of pool slot `slot` (block *
// block_size + offset in block). std::out_of_range naming the slot when its block is not one the
// host holds (below first_block or past the pool).
std::size_t host_cache_index(const MlaDecodeProblem& p, std::int64_t slot);

// Reference outputs (double) and device outputs (float, as decoded from o_dtype) share a shape:
// O [total_q_tokens, heads, Lv], LSE [total_q_tokens, heads] in natural log.
template <class T>
struct MlaDecodeOutputs {
  std::vector<T> o;
  std::vector<T> lse;
};

}  // namespace mlacheck
