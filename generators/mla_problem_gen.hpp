#pragma once
// rapidcheck generation of valid mla_decode problems, sized so that small cases come first.
#include <optional>
#include <ostream>

#include <rapidcheck.h>

#include "core/mla_problem.hpp"
#include "core/support_space.hpp"

namespace mlacheck {

// Upper bounds reached at rapidcheck's largest size. The defaults keep a case cheap enough for the
// plain-loop oracle on a CPU.
struct MlaGenLimits {
  int max_batch = 4;
  int max_kv_len = 600;
  // Percent of cases in which one request holds 16383, 16384 or 16385 tokens, beyond max_kv_len:
  // the 16k boundary of long contexts, kept rare because the oracle's cost grows with it.
  int long_kv_percent = 0;
  // Bound on the double-precision oracle's floating-point operations per case (2 * q_len * heads *
  // kv_len * (Lk + Lv), summed over requests) at the largest size, shared evenly by the requests:
  // each request's kv_len is capped to its share, so the cost of a case stays bounded whatever
  // heads, widths and batch were drawn. 0: no bound.
  double max_oracle_flops = 0.0;
  // Draw only the shapes MLA decode kernels take (device_shape()): 16-bit O, 16-bit q against a
  // 16-bit or fp8 e4m3 cache or fp8 q against a cache of its own fp8 type, Lv <= 512, rope <= 64.
  // Device properties, mutate and the run's property
  // sweep set it, so their budget goes to cases that run, and refusals are drawn only by the test
  // that checks refusals. Off: everything validate() accepts (f32 tensors, rope up to 128), which
  // the oracle's own properties cover.
  bool device_shapes_only = false;
  // Percent of cases that draw one rank of 128 heads (DeepSeek-V3 at TP1, the widest rank vLLM
  // runs), on top of the model and random head splits; 0 leaves the splits to chance (about 2%).
  int heads128_percent = 0;
  // Percent of cases whose blocks are placed past 4 GiB of cache pool (first_block from
  // first_block_past_4gib on: issue 13 item 2, UPSTREAM R4), so every row a kernel reads lies
  // 2^32 bytes or more past the pool's base. The host holds only the blocks read, but the device
  // allocates (and poisons) the whole pool, over 4 GiB: keep it rare in sweeps.
  int past_4gib_percent = 0;
  // Percent of cases that are decode sequences (core/mla_sequence.hpp, issue 13 item 3): 2..8
  // steps over one cache, requests joining into slots that were padding and leaving before the
  // end. The oracle runs every step, so the steps share max_oracle_flops. Only for callers that
  // run a case through run_mla_case, which runs a sequence step by step; 0 (the default) for those
  // that hand the problem to make_inputs, an oracle or Backend::run as one step.
  int sequence_percent = 0;
  // Draw only this path (a fault that shows on one path: `mlacheck mutate`); empty: any path.
  std::optional<DecodePath> path = std::nullopt;
  // A backend's declared support space (core/support_space.hpp): every field is drawn from the
  // values it allows (not drawn and refused), and shrinks within them. No space: the draws above.
  // A space's dtype combinations replace device_shapes_only's; sequence_percent and
  // past_4gib_percent apply only where the space allows sequences and the pool.
  std::optional<SupportSpace> space = std::nullopt;
};

// Whether `p` lies in the shape domain MLA decode kernels take (MlaGenLimits::device_shapes_only).
bool device_shape(const MlaDecodeProblem& p);

// Heads and TP from real models (DeepSeek-V3 128, Kimi-K2 64, DeepSeek-V2-Lite 16,
// Mistral-Small-4 32, a 96-head model) and random splits; q_len 1..8 leaning on the non-powers of
// two 3, 5, 6, 7, mixed within a batch or (one batch in three) shared by every request; 1..max_batch
// requests, one in eight a padded request (kv_len 0, never all of them); explicit split counts up to
// 128, past short requests' tokens; cache lengths from the kernels'
// geometry (see gen_kv_len) and, rarely, the 16k boundary; block sizes 1, 16, 64 and random 1..128;
// (Lv, rope) of real models and random multiples of 16; every dtype combination validate()
// accepts, or with device_shapes_only the 16-bit and fp8 ones kernels take (fp8 queries, of their
// cache's type, for one fp8 cache in three either way); random fills take the
// uniform profile in half the cases and the shaped ones (sink, extreme: core/fill_profile.hpp) in a
// quarter each, a shaped fp8 cache with a kv_scale of 2^-8..2^8; with past_4gib_percent,
// blocks placed past 4 GiB of pool; with sequence_percent, decode sequences (gen_sequence in the
// .cpp: 2..8 steps, a quarter of the requests joining late and a quarter leaving early, shrinking
// toward one step). Batch and cache lengths grow with
// rapidcheck's size (its inRange draws from a range that grows with it too) and shrink toward one
// request of a few tokens. With limits.space, every field comes from what the space allows
// (contains(space, p) holds for every draw and every shrink). The result has with_defaults()
// applied and passes validate().
rc::Gen<MlaDecodeProblem> gen_mla_decode_problem(MlaGenLimits limits = {});

// Counterexamples print as their repro string, ready for `mlacheck run --case`.
void showValue(const MlaDecodeProblem& p, std::ostream& os);

}  // namespace mlacheck

namespace rc {
template <>
struct Arbitrary<mlacheck::MlaDecodeProblem> {
  static Gen<mlacheck::MlaDecodeProblem> arbitrary() { return mlacheck::gen_mla_decode_problem(); }
};
}  // namespace rc
