#pragma once
// Tolerances derived from the dtypes and the accumulation lengths of a problem, never hand-tuned.
// The rule and its inputs are written into Tolerance::rule so every report row says why its
// bound is what it is. docs/tolerance.md explains the derivation.
#include "core/compare.hpp"
#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "core/rounding_points.hpp"

namespace mlacheck {

struct MlaTolerances {
  Tolerance o;
  Tolerance lse;
  // O is to be compared with the oracle's O rounded to o_dtype (the kernel-faithful oracle,
  // reference/mla_decode_reference.hpp): chosen by the tight rule where the backend declared its
  // rounding points and that comparison has the tighter bound.
  bool oracle_o_rounded = false;
};

// The worst-case rule from input magnitudes alone, for comparisons without an oracle's statistics
// (two device runs against each other). max_abs_q: largest |q|; max_abs_kv: largest |dequantised
// cache value| a request reads. p_rounded: the kernel rounds P to the input dtype before P.V (and
// the reference did not).
MlaTolerances mla_decode_tolerance(const MlaDecodeProblem& p, double max_abs_q, double max_abs_kv,
                                   bool p_rounded = true);
// That rule's rms bound is relative to ||O||, but an output in o_dtype's subnormal range rounds
// with an absolute error of up to u_o * nmin_o, without bound relative to a tiny O (an f16 O of
// about 1e-6 carries a few bits). For a comparison whose exact O has root-mean-square size o_rms
// (||O|| / sqrt(elements)), the O bound with that floor added to its rms: + u_o * nmin_o / o_rms.
Tolerance with_subnormal_rms_floor(const Tolerance& o, DType o_dtype, double o_rms);

// What the double-precision oracle measured of the actual numbers, for the tight rule. Row r is a
// (query token, head) pair, j a token it sees, s_rj its score, p_rj = exp(s_rj - m_r) / l_r its
// exact weight, v_j the value row, O_r the exact output row.
// A_rj = scale * ||q_r|| * ||k_j|| >= scale * sum_c |q_rc k_jc|: no partial sum of the fp32 dot
// product exceeds it (worst case).
// B_rj = sqrt(scale^2 * sum_c q_rc^2 k_jc^2 + s_rj^2): the root-mean-square size of those partial
// sums when they are added in an order that does not depend on the data (a random walk of the
// products drifting to s_rj), what the dot product's rounding errors scale with statistically.
struct MlaErrorScales {
  double max_abs_q = 0.0;
  double max_abs_kv = 0.0;           // largest |dequantised cache value| read (values included)
  double max_score_magnitude = 0.0;  // max A_rj
  double lse_score_rms = 0.0;        // max_r sqrt(sum_j p_rj^2 B_rj^2)
  double lse_score_mean = 0.0;       // max_r sum_j p_rj B_rj
  double p_concentration = 0.0;      // max_r sqrt(sum_j p_rj^2)
  double o_sq = 0.0;                 // sum over O of e^2
  double o_quad = 0.0;               // sum over O of e^4
  double o_max_sq = 0.0;             // max over O of e^2
  double p_weight = 0.0;             // sum_rj p_rj^2 ||v_j||^2
  double p_weight_sq = 0.0;          // sum_rj (p_rj^2 ||v_j||^2)^2
  // The same without each row's largest-score token, whose P is exactly 1 in an online softmax
  // whose running max includes the current tile (every declared kernel's).
  double p_weight_below_max = 0.0;
  double p_weight_sq_below_max = 0.0;
  // The four P weights above with rounding errors coherent within a rounding bucket: per row, the
  // tokens whose weights exp(s - m) round to one value of P's dtype (index kPBucketBf16 or
  // kPBucketF16) are one term max(||sum p_j v_j||^2, sum p_j^2 ||v_j||^2), not one per token. Weights
  // within an ulp of each other (near ties: equal scores, a sink row's flat keys) round alike, so
  // their errors add up rather than in quadrature.
  // sum_rj ||v_j||^2 / l_r^2 (l_r the row's weight sum, its max weight 1): what an absolute error
  // on every weight costs O -- a P split into hi + lo whose lo part is subnormal (weights below 1/8
  // in f16) rounds to the dtype's subnormal spacing, not to u^2 of the weight.
  double p_floor_weight = 0.0;
  struct PWeights {
    double all = 0.0;
    double all_sq = 0.0;
    double below_max = 0.0;
    double below_max_sq = 0.0;
  };
  static constexpr int kPBucketBf16 = 0;
  static constexpr int kPBucketF16 = 1;
  PWeights p_bucketed[2];
  double score_weight = 0.0;     // sum_rj p_rj^2 B_rj^2 (||v_j|| + ||O_r||)^2
  double exp_weight = 0.0;       // sum_rj p_rj^2 (||v_j|| + ||O_r||)^2
  double max_abs_row_max = 0.0;  // max_r |m_r|, the largest |row max score|
  // max_r of the times the running max rises walking the row's tokens first to last or last to
  // first (the larger): each rise is a rescale by an approximate exp2 that is not exactly 1.
  double max_running_max_rises = 0.0;
  // Per-row accumulation weights by the row's kv length n_r (k = 0, 1, 2: sums of n_r^k times):
  // walk: p_weight_r + ||O_r||^2, the mean square size of an accumulator's partial sums in row r;
  // o_sq: ||O_r||^2. Long rows' roundings are charged against their own share of ||O||.
  double walk_by_len[3] = {0.0, 0.0, 0.0};
  double o_sq_by_len[3] = {0.0, 0.0, 0.0};
  double o_round_sq = 0.0;  // sum over O of (round_o(e) - e)^2: the oracle's own rounding
  double o_elements = 0.0;  // elements of O
  // Where O sits against o_dtype's rounding boundaries (the midpoints between neighbouring values),
  // for the flips of the rounded-oracle comparison: o_ulp_sq is the sum over O of ulp_o(e)^2 and
  // o_near_boundary_sq[k] the same over the elements within 2^-(4k+4) ulp of a boundary. Uniformly
  // placed values put a share 2^-(4k+3) there; near-equal weights over two tokens put about half of
  // a bf16 output on ties, where any fp32 error flips it. Left out: an f32 o_dtype, and rows of one
  // weighted token (O = v * kv_scale, exact in a kernel's fp32 as in the oracle's float).
  static constexpr int kBoundaryLevels = 5;
  double o_ulp_sq = 0.0;
  double o_near_boundary_sq[kBoundaryLevels] = {0.0, 0.0, 0.0, 0.0, 0.0};
};

// The tight rule: statistical score, P-rounding and output-rounding terms from the oracle's
// scales, LSE at the scale of fp32 accumulation, no P charge where P is not rounded and no P
// charge on the LSE where the row sum is declared to come from unrounded P. Where the backend
// declared its rounding points, O is judged against the rounded oracle when that bound is tighter
// (it is where P keeps nearly full precision, so that what remains is fp32 accumulation order).
MlaTolerances mla_decode_tolerance(const MlaDecodeProblem& p, const MlaErrorScales& scales, PRoundingPoint point);

// Gather is a copy (bitwise: abs = rel = rms = 0) or a dequantisation (one rounding to out_dtype).
Tolerance kv_gather_tolerance(const KvGatherProblem& p);

}  // namespace mlacheck
