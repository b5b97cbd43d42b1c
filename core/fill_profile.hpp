#pragma once
// Fill profiles beyond uniform (FillProfile::sink, ::extreme): inputs shaped so that a misplaced
// rounding in a kernel shows instead of hiding under near-uniform softmax weights of unit-sized
// values (issue 12 item 5). make_inputs draws the same chunked uniform noise as the uniform
// profile (fill.hpp) and hands each q row and each cached latent to these functions, which scale
// it and round it to its dtype. Per-row and per-token factors are hashed from (seed, index), so a
// value still depends only on its position in the seeded tensor (thread count, block size, block
// order and the TP rank's slice change nothing).
//
// sink: scores s = scale*q.k with a large common offset, a spread across keys, and an attention
//   sink. The structured channels (the rope channels, or the last 16 when rope < 16) carry a fixed
//   +-1 sign pattern d: q row = lambda*(u + A*d) there (u: the uniform noise), latent = w + b*d
//   (w: the noise), b larger by 9/8 at the request's position 0. Per row, lambda is log-uniform in
//   [2^-6, 2], so the offset lambda*scale*A*b*D (D structured channels) spans 4..512, the spread
//   across keys about 0.03 (near ties) to 4, and the sink's margin, an eighth of the offset, goes
//   from nothing to one-hot (it holds most of the weight from lambda = 1/8). The values (the first Lv
//   channels) stay unit noise when rope >= 16, so O is a genuine mixture, and LSE and the row max
//   sit in the hundreds, where bf16 has an ulp of 1 or 2.
// extreme: every cached token is one of three kinds, hashed from its index: huge codes (a quarter:
//   up to 0.9 of the cache dtype's largest finite value, the dequantised value capped at 57344 so
//   that an f16 O can hold any mixture of them), unit codes (half), and tiny codes (a quarter: in
//   the subnormal range of fp8 and f16, 2^-18 for bf16). q rows are uniform noise sized so the huge
//   tokens' scores have a spread of about 8*lambda (lambda log-uniform in [2^-4, 4]); the others
//   score about 0.
// fp8 caches (both profiles): the latents are sized to the per-tensor scale as a quantiser sizes a
// scale to its data (codes up to 0.9 of fp8's range; kv_scale from 2^-8 to 2^8 gives values of
// 2^-8 to 2^15), and q is sized inversely, so the scores keep the shapes above whatever the scale.
#include <cstddef>
#include <span>

#include "core/mla_problem.hpp"

namespace mlacheck {

// One q row of the model (`model_row` = token * total_heads + model head) from uniform noise in
// [-1, 1) (unrounded); rounds to q_dtype. `p.profile` must not be uniform.
void shape_q_row(const MlaDecodeProblem& p, std::size_t model_row, std::span<float> row);

// The cached latent of position `pos` of a request; `token` is its index in the "kv" tensor
// (kv_indptr[r] + pos). From uniform noise in [-1, 1); writes cache codes of kv_dtype (the values
// divided by kv_scale).
void shape_latent(const MlaDecodeProblem& p, std::size_t token, int pos, std::span<float> latent);

}  // namespace mlacheck
