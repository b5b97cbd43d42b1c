#include "core/tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace mlacheck {

// The derivation of every term is in docs/tolerance.md; the names below follow it.
namespace {

constexpr double kU32 = 0x1p-24;  // unit roundoff of fp32, the kernels' accumulation type
// Safety factor over the first-order bounds: covers second-order terms and the spread of hardware
// exp2/log2 approximations.
constexpr double kMargin = 2.0;

// Higham's gamma_k = k u / (1 - k u): the relative error bound of k fp32 roundings in a chain.
double gamma32(double k) {
  const double ku = k * kU32;
  return ku < 1.0 ? ku / (1.0 - ku) : std::numeric_limits<double>::infinity();
}

// Smallest positive normal of t: below it rounding errors are absolute (half the subnormal
// spacing, u * smallest_normal) instead of relative.
double smallest_normal(DType t) {
  switch (t) {
    case DType::f32:
    case DType::bf16:
      return 0x1p-126;
    case DType::f16:
      return 0x1p-14;
    case DType::fp8_e4m3fn:
      return 0x1p-6;
    case DType::fp8_e4m3fnuz:
      return 0x1p-7;
  }
  return 1.0;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// "2^-8(bf16)": a unit roundoff with the dtype it belongs to.
std::string roundoff(DType t) {
  return "2^" + std::to_string(std::ilogb(unit_roundoff(t))) + "(" + std::string(to_string(t)) + ")";
}

}  // namespace

MlaTolerances mla_decode_tolerance(const MlaDecodeProblem& problem, double max_abs_q, double max_abs_kv,
                                   bool p_rounded) {
  const MlaDecodeProblem p = with_defaults(problem);
  const double n = max_kv_len(p);
  const double width = lk(p);
  const double max_v = max_abs_kv;  // values are the first Lv entries of the same latents

  // Score error, in natural-log units: an fp32 dot product of Lk terms plus a few roundings
  // (dequantisation, scale, log2(e), max subtraction) on |s| <= scale*Lk*maxQ*maxK, plus the
  // exp2/log2 approximations of the softmax and the split merge.
  const double score_bound = p.scale * width * max_abs_q * max_abs_kv;
  const double ds = gamma32(width + 8.0) * score_bound + 16.0 * kU32;
  // Rounding P (<= 1) to q_dtype: relative u_p above the smallest normal, absolute below it.
  double e_p = 0.0, k_sub = 0.0;
  const double u_p = unit_roundoff(p.q_dtype);
  if (p_rounded) {
    k_sub = n * u_p * smallest_normal(p.q_dtype);
    e_p = (u_p + k_sub) / (1.0 + k_sub);
  }
  // Two fp32 sums (P.V and the row sum), each of n terms and up to n online-softmax rescales,
  // plus dequantisation, the division and the split merge.
  const double e_acc = gamma32(4.0 * n + 16.0);
  const double u_o = unit_roundoff(p.o_dtype);

  MlaTolerances t;
  t.o.abs = kMargin * (max_v * (ds + e_p + e_acc) + u_o * smallest_normal(p.o_dtype));
  t.o.rel = kMargin * u_o;
  // Normwise, for the zero-mean random values the fills produce, ||error|| / ||O|| stays below each
  // term's per-weight relative size (2ds: a weight moves by up to e^(2ds) relative to the others),
  // and typical rounding errors are a fraction of their bound. No margin, so that small
  // systematic errors show.
  t.o.rms = u_o + 2.0 * ds + e_p + e_acc;
  t.lse.abs = kMargin * (ds + e_p + gamma32(2.0 * n + 8.0));
  t.lse.rel = kMargin * 4.0 * kU32;
  // A log has no natural scale to be relative to (an LSE near 0 is as valid as one near 10), so
  // only the elementwise bound applies.
  t.lse.rms = std::numeric_limits<double>::infinity();

  const std::string inputs = "n=max_kv_len=" + std::to_string(max_kv_len(p)) + " Lk=" + std::to_string(lk(p)) +
                             " scale=" + num(p.scale) + " maxQ=" + num(max_abs_q) + " maxK=maxV=" + num(max_abs_kv) +
                             " u_p=" + (p_rounded ? roundoff(p.q_dtype) : std::string("0(P not rounded)")) +
                             " u_o=" + roundoff(p.o_dtype) + " u32=2^-24 K=n*u_p*nmin_p=" + num(k_sub) +
                             " -> ds=" + num(ds) + " e_p=" + num(e_p) + " e_acc=" + num(e_acc);
  t.o.rule =
      "O: |a-e|<=2*(maxV*(ds+e_p+e_acc)+u_o*nmin_o)+2*u_o*|e|, rms<=u_o+2*ds+e_p+e_acc; "
      "ds=gamma(Lk+8)*scale*Lk*maxQ*maxK+16*u32, e_p=(u_p+K)/(1+K), e_acc=gamma(4n+16); " +
      inputs;
  t.lse.rule =
      "LSE: |a-e|<=2*(ds+e_p+gamma(2n+8))+8*u32*|e|, no rms bound; "
      "ds=gamma(Lk+8)*scale*Lk*maxQ*maxK+16*u32, e_p=(u_p+K)/(1+K); " +
      inputs;
  return t;
}

Tolerance with_subnormal_rms_floor(const Tolerance& o, DType o_dtype, double o_rms) {
  Tolerance t = o;
  if (o_dtype == DType::f32) return t;
  const double floor = o_rms > 0.0 ? unit_roundoff(o_dtype) * smallest_normal(o_dtype) / o_rms : 0.0;
  t.rms += floor;
  t.rule += " + subnormal floor u_o*nmin_o/rms(O)=" + num(floor);
  return t;
}

namespace {

// Tail constant of the statistical terms: a sum of independent, mean-zero rounding errors exceeds
// k_sigma times its scale sqrt(sum of squares) with probability at most 2 exp(-k^2/2) = 3e-8
// (Azuma-Hoeffding).
constexpr double kSigma = 6.0;
// Hoeffding for a sum of independent squared errors in [0, u^2 w_i]: it exceeds its mean by more
// than u^2 sqrt(ln(1/delta)/2 * sum w_i^2) with probability delta; delta = 1e-8.
constexpr double kLnDelta = 18.42;
const double kHoeffding = std::sqrt(kLnDelta / 2.0);
// Over the sum of the normwise terms: first-order expansions and the cross terms of the squared
// error sums.
constexpr double kRmsMargin = 1.25;
// The normwise terms are root-mean-square sums over many independent errors (tokens, channels,
// rows); this many standard deviations covers their tail.
constexpr double kRmsSigma = 3.0;

}  // namespace

MlaTolerances mla_decode_tolerance(const MlaDecodeProblem& problem, const MlaErrorScales& sc, PRoundingPoint point) {
  const MlaDecodeProblem p = with_defaults(problem);
  const double n = max_kv_len(p);
  const double width = lk(p);
  const ResolvedPRounding pr = resolve_p_rounding(p, point);
  const double u_o = unit_roundoff(p.o_dtype);
  const double nmin_o = smallest_normal(p.o_dtype);

  // Per unit of partial-sum size B: an fp32 dot product's error is a sum of random-signed
  // roundings of Lk+8 partial sums (with the scale, log2(e) and max subtraction) of root-mean-square
  // size B: its standard deviation is at most sqrt(Lk+8) u B. Plus up to one unit per 16-term MMA
  // step, for tensor cores that truncate instead of rounding.
  const double c_sd = std::sqrt(width + 8.0) * kU32;
  const double c_trunc = (width / 16.0 + 8.0) * kU32;
  // exp2 / log2 hardware approximations: a relative error in exp is a score error.
  const double e_exp = 8.0 * kU32;
  // Relative error of an fp32 running sum of n positive terms with up to one rescale per term
  // (n_r roundings of partials <= the sum: standard deviation sqrt(n_r) u), a truncation per
  // 16-term step, the division and the split merge's roundings.
  const double n_r = 2.0 * n + 32.0;
  // Each rise of the running max rescales l by an exp2 off by up to 4u (hardware approximations:
  // 1-2 ulp), independently; splits restart the max (up to 64 more rises counted).
  const double l_trunc = kU32 * (n / 16.0 + 16.0) + kSigma * 4.0 * kU32 * std::sqrt(sc.max_running_max_rises + 64.0);
  // P rounding, worst case (elementwise): relative u above P's smallest normal, absolute below.
  double k_sub = 0.0, e_p = 0.0;
  if (pr.rounded) {
    // Half of the dtype's subnormal spacing (u * nmin) per weight; for a split P the lo part's
    // (pr.u is u^2 there): weights below 1/8 in f16 have a subnormal lo part.
    k_sub = n * (pr.split ? std::sqrt(pr.u) : pr.u) * smallest_normal(pr.dtype);
    e_p = (pr.u + k_sub) / (1.0 + k_sub);
  }
  const double ds = gamma32(width + 8.0) * sc.max_score_magnitude + 16.0 * kU32;
  const double e_acc = gamma32(4.0 * n + 16.0);

  MlaTolerances t;
  t.o.abs = kMargin * (sc.max_abs_kv * (ds + e_p + e_acc) + u_o * nmin_o);

  // Normwise, each term relative to ||O||. Rounding errors of different tokens, channels and rows
  // are independent, so these are root-mean-square sizes with kRmsSigma for the tail of a sum of
  // many of them; truncation terms are added whole.
  const double o_norm = std::sqrt(sc.o_sq);
  // An all-zero reference (every row empty or every value 0) has no relative scale: the terms
  // below vanish, and the judge reads such a reference as MISTRUSTED, never as a bound of NaN.
  const double inv = o_norm > 0.0 ? 1.0 / o_norm : 0.0;
  // Output rounding: mean square u_o^2/3 of each element (uniform position in its ulp), Hoeffding
  // above it, never more than u_o; subnormal outputs add an absolute half spacing.
  const double out_mean = sc.o_sq > 0.0 ? std::min(1.0, 1.0 / 3.0 + kHoeffding * std::sqrt(sc.o_quad) / sc.o_sq) : 1.0;
  const double t_out_generic = u_o * std::sqrt(out_mean) + u_o * nmin_o * std::sqrt(sc.o_elements) * inv;
  // P rounding: relative errors <= u_P on each weight, independent between rounding buckets;
  // sum_j eps_j p_j v_j.
  double t_p = 0.0;
  if (pr.rounded) {
    // A declared kernel's running max includes the current tile, so the row max's own P is exp2(0) = 1.
    // Coherent within a rounding bucket where P is rounded to bf16 or f16 whole; a split P's error
    // is its low part's, spread over many buckets, and counted per token.
    MlaErrorScales::PWeights weights{sc.p_weight, sc.p_weight_sq, sc.p_weight_below_max, sc.p_weight_sq_below_max};
    if (!pr.split && pr.dtype == DType::bf16) weights = sc.p_bucketed[MlaErrorScales::kPBucketBf16];
    if (!pr.split && pr.dtype == DType::f16) weights = sc.p_bucketed[MlaErrorScales::kPBucketF16];
    const double pw = pr.declared ? weights.below_max : weights.all;
    const double pw2 = pr.declared ? weights.below_max_sq : weights.all_sq;
    const double w = std::min(pw, pw / 3.0 + kHoeffding * std::sqrt(pw2));
    t_p = pr.u * (1.0 + (pr.split ? 0.0 : n * smallest_normal(pr.dtype))) * std::sqrt(w) * inv;
    // Weights below the dtype's smallest normal round to its subnormal spacing: an absolute error of
    // up to half of it on each, sum_j e_j v_j / l, whatever the weight's size (tiny weights on huge
    // values: the H200 sitting's extreme-profile f16 row, 4.4 times its relative P term). A split
    // P's lo part does so below weights of 1/8 (f16).
    const double u_elem = pr.split ? std::sqrt(pr.u) : pr.u;
    t_p = std::hypot(t_p, u_elem * smallest_normal(pr.dtype) * std::sqrt(sc.p_floor_weight) * inv);
  }
  // Scores: sum_j p_j delta_j (v_j - O) with independent delta_j (a common part cancels in the
  // softmax), delta_j of standard deviation c_sd B_j, truncation c_trunc B_j, exp2 error e_exp.
  const double t_s =
      (kRmsSigma * c_sd + c_trunc) * std::sqrt(sc.score_weight) * inv + e_exp * std::sqrt(sc.exp_weight) * inv;
  // P.V accumulation: partial sums of a data-independent order behave as a random walk with
  // drift, whose mean square norm in row r stays below walk_r = p_weight_r + ||O_r||^2; 2n_r+32
  // random roundings of them per channel, and one truncation (2u) per 16-token MMA step. The row
  // sum's relative error e_l(n_r) scales O_r as a whole; with splits each partial's own l error
  // reweights it (about the size of a partial again). Each row is charged for its own length:
  // sqrt(sum_r (alpha + beta n_r)^2 X_r) from the oracle's sums of n_r^k X_r.
  const auto by_len = [](const double(&x)[3], double alpha, double beta) {
    return std::sqrt(std::max(0.0, alpha * alpha * x[0] + 2.0 * alpha * beta * x[1] + beta * beta * x[2]));
  };
  const double t_acc = kU32 *
                       (kRmsSigma * std::sqrt(std::max(0.0, 2.0 * sc.walk_by_len[1] + 32.0 * sc.walk_by_len[0])) +
                        2.0 * by_len(sc.walk_by_len, 2.0, 1.0 / 16.0)) *
                       inv;
  const double rises = kSigma * 4.0 * kU32 * std::sqrt(sc.max_running_max_rises + 64.0);
  // A rise of the running max rescales the accumulator and l by the same alpha, so O = acc / l
  // keeps none of alpha's error; the split merge's weights do (walk part).
  const auto e_l_norm = [&](const double(&x)[3], double extra) {
    return kU32 * (kRmsSigma * std::sqrt(std::max(0.0, 2.0 * x[1] + 32.0 * x[0])) + by_len(x, 16.0, 1.0 / 16.0)) +
           extra * std::sqrt(x[0]);
  };
  const double t_norm = (e_l_norm(sc.o_sq_by_len, 4.0 * kU32) + e_l_norm(sc.walk_by_len, rises + 8.0 * kU32)) * inv;
  const double t_rest = std::hypot(t_p, t_s) + t_acc + t_norm;
  // Without the declaration: the statistical output rounding beside the other terms, or the
  // oracle's own rounding r plus the elements a pre-rounding error moves across a boundary.
  // Both round (the faithful oracle): an element differs by an ulp (<= 2 u_o |e|) where the
  // kernel's fp32 value lands across a rounding boundary, with probability |d|/ulp: mean square
  // <= 2(2 u_o t_rest + t_rest^2); Bernstein over the elements (largest term b) above that mean.
  const double mean = 2.0 * (2.0 * u_o * t_rest + t_rest * t_rest);
  const double b = sc.o_sq > 0.0 ? 4.0 * u_o * u_o * sc.o_max_sq / sc.o_sq : 4.0 * u_o * u_o;
  const double flips =
      p.o_dtype == DType::f32 ? t_rest : std::sqrt(mean + std::sqrt(2.0 * b * mean * kLnDelta) + b * kLnDelta / 3.0);
  // Against the rounded oracle the flips above assume O placed uniformly between o_dtype's
  // boundaries. Outputs crowded at boundaries beyond that share (near-equal weights over two
  // tokens put about half of a bf16 output on ties, which any fp32 error flips) are charged a
  // flip, one ulp, each: the largest excess over the uniform share 2^-(4k+3) at any level.
  double crowded = 0.0;
  for (int k = 0; k < MlaErrorScales::kBoundaryLevels; ++k) {
    crowded = std::max(crowded, sc.o_near_boundary_sq[k] - std::ldexp(1.0, -(4 * k + 3)) * sc.o_ulp_sq);
  }
  const double crowded_rel = std::sqrt(crowded) * inv;
  const double flips_faithful = std::hypot(flips, crowded_rel);
  const double r_rel = std::sqrt(sc.o_round_sq) * inv;
  // The output rounding beside the other terms: the statistical size for outputs placed evenly
  // between o_dtype's values, but never less than the oracle's own rounding r. Where a kernel's
  // fp32 O rounds to the same value as the exact O its error is exactly that rounding, and
  // structured inputs (exact fills, a kv_scale of 1 + 2^-11, one weighted token) put O on ties or
  // away from the even spread: the H100 property sitting found rows whose whole error was r, above
  // the statistical size.
  const double t_round = std::max(t_out_generic, r_rel);
  const double rms_generic =
      kRmsMargin *
      std::min(std::sqrt(t_round * t_round + t_p * t_p + t_s * t_s) + t_acc + t_norm, r_rel + flips);
  const double rms_faithful =
      pr.declared && p.o_dtype != DType::f32 ? kRmsMargin * flips_faithful : std::numeric_limits<double>::infinity();
  const bool faithful_o = rms_faithful < rms_generic;
  t.oracle_o_rounded = faithful_o;
  t.o.rms = std::min(rms_generic, rms_faithful);
  // Faithful: both sides are rounded to o_dtype, so two roundings (the kernel's pre-rounding
  // error is in abs).
  t.o.rel = faithful_o ? 2.5 * u_o : kMargin * u_o;

  // LSE = m + ln l. Scores move it by sum_j p_j delta_j (random part and bias part); l by e_l;
  // log2/exp2 approximations and the final roundings by a few u of |m| and ln l. Rounded P charges
  // only an undeclared kernel (which may sum rounded P into l): sum_j eps_j p_j.
  const double lse_scores = kSigma * c_sd * sc.lse_score_rms + c_trunc * sc.lse_score_mean;
  const double e_l = kU32 * kSigma * std::sqrt(n_r) + l_trunc;
  const double lse_p = pr.declared ? 0.0 : e_p * std::min(1.0, kSigma * sc.p_concentration);
  const double lse_round = 4.0 * kU32 * (sc.max_abs_row_max + std::log(std::max(n, 1.0)) + 1.0);
  t.lse.abs = kMargin * (lse_scores + e_l + e_exp + lse_round + lse_p);
  t.lse.rel = kMargin * 4.0 * kU32;
  t.lse.rms = std::numeric_limits<double>::infinity();

  const std::string inputs = "n=" + std::to_string(max_kv_len(p)) + " Lk=" + std::to_string(lk(p)) + " " + pr.describe +
                             " u_P=" + num(pr.u) + " u_o=" + roundoff(p.o_dtype) +
                             (faithful_o ? " oracle O rounded to o_dtype" : "") + " A=" + num(sc.max_score_magnitude) +
                             " maxV=" + num(sc.max_abs_kv);
  t.o.rule =
      "O(tight): |a-e|<=2*(maxV*(gamma(Lk+8)*A+16u+e_p+gamma(4n+16))+u_o*nmin_o)+" +
      std::string(faithful_o ? "2.5" : "2") + "*u_o*|e|, rms<=1.25*(" +
      (faithful_o ? "hypot(flips(u_o,t_rest),crowded)" : "min(hypot(max(t_out,r),t_p,t_s)+t_acc+t_norm,r+flips(u_o,t_rest))") +
      "); " + inputs + " -> t_out=" + num(t_out_generic) + " t_p=" + num(t_p) + " t_s=" + num(t_s) +
      " t_acc=" + num(t_acc) + " t_norm=" + num(t_norm) + " r=" + num(r_rel) + " flips=" + num(flips) +
      " crowded=" + num(crowded_rel) + " e_p=" + num(e_p);
  t.lse.rule = "LSE(tight): |a-e|<=2*(6*c_sd*sqrt(max sum p^2B^2)+c_trunc*max sum pB+e_l+8u+4u*(max|m|+ln n+1)" +
               std::string(pr.declared ? "" : "+e_p*min(1,6*sqrt(sum p^2))") + ")+8u*|e|, no rms bound; " + inputs +
               " -> scores=" + num(lse_scores) + " e_l=" + num(e_l) + " rounding=" + num(lse_round) +
               " p=" + num(lse_p);
  return t;
}

Tolerance kv_gather_tolerance(const KvGatherProblem& p) {
  Tolerance t;
  const std::string types = std::string(to_string(p.cache_dtype)) + "->" + std::string(to_string(p.out_dtype));
  if (!dequantises(p)) {
    t.rule = "K,V: bitwise copy " + types + ": abs=rel=rms=0";
    return t;
  }
  // One rounding to out_dtype. Kernels form code*scale in fp32 first; that double rounding still
  // stays within u_out*|e|: it only differs from one rounding when the fp32 product lands on a
  // tie of out_dtype, and a tie lies at least a factor (1 + u_out) above the bottom of its binade,
  // which leaves u_out^2 of relative room for the fp32 error u32 (docs/tolerance.md). Below
  // out_dtype's smallest normal the error is absolute: half the subnormal spacing.
  const double u_out = unit_roundoff(p.out_dtype);
  t.rel = u_out;
  t.abs = u_out * smallest_normal(p.out_dtype);
  t.rms = u_out;
  t.rule = "K,V: dequantise " + types + " (code*scale, one rounding to out): |a-e|<=u_out*nmin_out+u_out*|e|, " +
           "rms<=u_out; u_out=" + roundoff(p.out_dtype) + " nmin_out=" + num(smallest_normal(p.out_dtype)) +
           " k_scale=" + num(p.k_scale) + " v_scale=" + num(p.v_scale);
  return t;
}

}  // namespace mlacheck
