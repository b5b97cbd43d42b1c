#pragma once
// The MLA decode oracle: Eigen matrix products per request, accumulating in double.
//
// For request b with kv_len tokens and q_len query tokens, with K the request's cached latents
// gathered through the block table (kv_len x Lk, values = cache codes * kv_scale) and Q its
// q_len*heads query rows (token-major, then head):
//   S = Q K^T * scale;  query token t sees kv positions [0, kv_len - q_len + t] (causal,
//   aligned bottom-right); m = rowmax(S), E = exp(S - m), l = rowsum(E);
//   O = (E V) / l with V the first Lv columns of K;  LSE = m + ln(l).
#include <cstdint>
#include <optional>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/rounding_points.hpp"
#include "core/tolerance.hpp"
#include "reference/p_bucket_kinds.hpp"

namespace mlacheck {

// Where the oracle rounds P is a declared rounding point (core/rounding_points.hpp), the one enum
// for it: a point that keeps P (kept_f32) leaves it in double, the mathematically intended result;
// a point that rounds P to one dtype (to_bf16, to_f16, to_q_dtype, to_mma_input where that is no
// hi + lo split, and undeclared, read as q_dtype) rounds each E element (the unnormalised
// probability exp(s - m), relative to the row max) to float and then to that dtype before E V, as
// a kernel converts its float P tile to feed the PV MMA. The normaliser l is the sum of the
// unrounded E (a kernel sums its float P before converting), O is divided by it in double, and LSE
// is unchanged. A split point (P = hi + lo) has no single rounding to model: std::invalid_argument.
// The dtype P is rounded to, or nullopt when it is kept.
std::optional<DType> oracle_p_dtype(const MlaDecodeProblem& p, PRoundingPoint rounding);

// O [total_q_tokens, heads, Lv] and LSE [total_q_tokens, heads] of this rank's heads.
// Throws std::invalid_argument when the inputs' sizes do not match the problem.
// `scales`, when given, receives what the tight tolerance needs of the actual numbers
// (core/tolerance.hpp), measured on this oracle's own weights and outputs.
// `threads` > 1 spreads the work over that many threads, in the units reference/oracle_work_units.hpp
// cuts each request into (key chunks, row blocks, value blocks), which depend on the problem only:
// outputs and scales are bit-identical for every count.
// `buckets`: the dtypes whose rounding-bucket statistics (scales->p_bucketed) are measured, both
// unless the caller knows the point it is judged against (reference/p_bucket_kinds.hpp).
MlaDecodeOutputs<double> mla_decode_reference(const MlaDecodeProblem& p, const MlaDecodeInputs& in,
                                              PRoundingPoint rounding = PRoundingPoint::kept_f32, MlaErrorScales* scales = nullptr,
                                              int threads = 1, PBucketKinds buckets = {});

// The kernel-faithful oracle: `exact` (this oracle's outputs with P kept) with the rounding
// points a backend declared applied where the tight rule judges against them: O rounded to
// o_dtype when tol.oracle_o_rounded. q and cache codes are exact already; P is rounded by a kernel
// against a running max the oracle cannot know (it depends on the kernel's tiles and splits), so
// its rounding is charged by the tolerance instead (docs/tolerance.md). Unchanged otherwise.
MlaDecodeOutputs<double> faithful_oracle(const MlaDecodeProblem& p, const MlaTolerances& tol,
                                         MlaDecodeOutputs<double> exact);

// Throws std::invalid_argument naming the first input whose size disagrees with the problem;
// shared by the oracles so both reject the same inputs.
void check_mla_inputs(const MlaDecodeProblem& p, const MlaDecodeInputs& in);

}  // namespace mlacheck
