#include "core/tolerance.hpp"

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
