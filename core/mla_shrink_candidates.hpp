#pragma once
// Issue 28 item 3: the smaller problems a failing mla_decode case is shrunk through. Pure host
// code over the descriptor: the shrinking loop (harness/case_shrink.hpp) runs them on a backend
// and keeps the first that still fails the same way.
//
// Every candidate is valid (validate() accepts it), canonical (parse_mla_decode(to_repro(c)) == c)
// and strictly smaller than the problem it came from by `shrink_size`, so a loop that only ever
// moves to a candidate ends. The order is fixed (the same problem gives the same list), from the
// changes that cut the most work to the cosmetic ones:
//   1. fewer requests: drop half of the batch, then quarters, ... then one request at a time;
//   2. fewer decode steps (a sequence): 1 step, half the steps, one step less;
//   3. shorter caches: per request, kv_len toward its q_len (q_len, half, one less);
//   4. shorter q_len: per request, toward 1 (1, half, one less);
//   5. fewer heads: tp 1 with the rank's heads as the model, rank 0, then fewer heads per rank
//      (1, 2, 4, 8, 16, half) keeping tp;
//   6. smaller widths: Lv (16, 64, 128, 256, half; multiples of 16), then rope (0, 16, 32, 64, half);
//   7. a smaller block size (1, 16, 64, half);
//   8. simpler dtypes, one at a time, toward bf16 (the descriptor's default): q, kv, O; then fp8
//      scales toward 1;
//   9. first_block toward 0 (a pool that starts at block 0), then no spare pool blocks;
//  10. profile uniform, then fill exact.
// Values are tried smallest first, so one accepted candidate goes as far as the failure allows.
// A scale that was the default 1/sqrt(Lk) follows Lk; any other scale is kept. Where a width, a
// dtype or a block size changes the bytes of a block, first_block is moved so the requests' blocks
// still start at least as many bytes past the pool's base (a failure past 4 GiB stays past it),
// and the pool keeps as many blocks beyond the requests' as it had.
#include <array>
#include <string>
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

// The measure candidates shrink: compared lexicographically, in this order. Dtypes rank bf16 0,
// f16 1, f32 2, fp8 3; a scale counts 1 when it is not 1.
//   requests, steps, sum of kv_lens, sum of q_lens, total heads, tp, rank, Lv, rope, block size,
//   q dtype, kv dtype, O dtype, q_scale, kv_scale, first_block, num_blocks, profile not uniform,
//   fill random
using ShrinkSize = std::array<long long, 19>;
ShrinkSize shrink_size(const MlaDecodeProblem& p);

struct ShrinkCandidate {
  MlaDecodeProblem problem;
  std::string change;  // what was changed, for the steps a shrink prints: "kv of request 3: 4096 -> 1"
};

// The candidates of `p` (a valid problem), in the fixed order above; empty when nothing is smaller.
std::vector<ShrinkCandidate> mla_shrink_candidates(const MlaDecodeProblem& p);

}  // namespace mlacheck
