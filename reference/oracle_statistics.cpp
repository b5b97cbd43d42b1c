#include "reference/oracle_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "core/dtype.hpp"
#include "core/dtype_convert.hpp"

namespace mlacheck {

namespace {

// Where x lies against t's rounding boundaries (the midpoints between neighbouring values of t), for
// MlaErrorScales::o_near_boundary_sq: t's spacing around x (normal binades and the subnormal range)
// and whether x lies within 2^-(4k+4) of it from a boundary. Zeros and f32 outputs are left out.
void add_boundary_distance(DType t, double x, MlaErrorScales& sc) {
  if (t == DType::f32 || x == 0.0 || !std::isfinite(x)) return;
  int min_exponent = -126;  // the smallest normal's
  if (t == DType::f16) min_exponent = -14;
  if (t == DType::fp8_e4m3fn) min_exponent = -6;
  if (t == DType::fp8_e4m3fnuz) min_exponent = -7;
  const double ulp = std::ldexp(2.0 * unit_roundoff(t), std::max(std::ilogb(x), min_exponent));
  const double in_ulps = std::abs(x) / ulp;  // values at whole numbers, boundaries at halves
  const double distance = std::abs(in_ulps - std::floor(in_ulps) - 0.5);
  sc.o_ulp_sq += ulp * ulp;
  for (int k = 0; k < MlaErrorScales::kBoundaryLevels; ++k) {
    if (distance < std::ldexp(1.0, -(4 * k + 4))) sc.o_near_boundary_sq[k] += ulp * ulp;
  }
}

// The 16-bit code of a weight rounded to bf16 or f16. Weights are exp(s - m) in [0, 1], and for
// non-negative values the codes order as the values do: equal codes are one rounding bucket.
template <class Format>
void bucket_codes(const double* e_row, std::span<const std::uint32_t> nonzero, std::vector<std::uint16_t>& codes) {
  codes.resize(nonzero.size());
  for (std::size_t i = 0; i < nonzero.size(); ++i) {
    codes[i] = static_cast<std::uint16_t>(encode_float<Format>(static_cast<float>(e_row[nonzero[i]])));
  }
}

// Row r's tokens of nonzero weight grouped by rounding bucket of one dtype (the codes and their
// order in s), collected for the bucketed P rounding weights (MlaErrorScales::p_bucketed): a kernel
// rounds each weight once, so the tokens whose weights round to one value share nearly one error
// and add up coherently. Buckets are collected in code order, each bucket's tokens in token order.
void collect_buckets(int kind, Eigen::Index top, RowStatisticsScratch& s) {
  const std::size_t n = s.order.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || s.codes[s.order[i]] != s.codes[s.order[i - 1]]) s.buckets.open(kind);
    const std::uint32_t j = s.nonzero[s.order[i]];
    s.buckets.add(j, s.p[j], s.w[j], j == top);
  }
}

// Sum of a over [0, n) without index `skip`, as two sums so that a dominant term is never subtracted.
double sum_without(const Eigen::ArrayXd& a, Eigen::Index n, Eigen::Index skip) {
  return a.head(skip).sum() + a.segment(skip + 1, n - skip - 1).sum();
}

// Row r of the request into sc; returns whether it has exactly one weighted token.
bool add_row(const MlaDecodeProblem& p, const OracleRequest& x, Eigen::Index r, RowStatisticsScratch& s,
             MlaErrorScales& sc) {
  // A row that sees no token (a padded request) is the exact identity, O 0 and LSE -inf: no
  // rounding reaches it, and its 0/0 weights and -inf max must not reach the scales.
  if (!(x.row_sum(r) > 0.0)) return false;
  const int lv = p.kv_lora_rank;
  const Eigen::Index n = x.visible[static_cast<std::size_t>(r)];
  const double l = x.row_sum(r);
  const double o_norm = Eigen::Map<const Eigen::RowVectorXd>(x.o + r * lv, lv).norm();
  const double* e_row = x.e.data() + r * x.e.cols();
  const Eigen::Map<const Eigen::ArrayXd> e(e_row, n);
  sc.max_abs_row_max = std::max(sc.max_abs_row_max, std::abs(x.row_max(r)));

  // The running maximum's record highs walking the row either way; the first record of the row's
  // maximum is its top token (weight exp(0) = 1 before normalising; the first of ties).
  int rises_forward = 0, rises_backward = 0;
  Eigen::Index top = 0;
  double best = 0.0;
  for (Eigen::Index j = 0; j < n; ++j) {
    if (e[j] > best) {
      ++rises_forward;
      best = e[j];
      top = j;
    }
  }
  best = 0.0;
  for (Eigen::Index j = n; j-- > 0;) {
    if (e[j] > best) ++rises_backward;
    best = std::max(best, e[j]);
  }
  sc.max_running_max_rises =
      std::max(sc.max_running_max_rises, static_cast<double>(std::max(rises_forward, rises_backward)));

  // Per token, as array expressions over the row: tokens of zero weight (underflowed or masked)
  // add nothing to the weighted sums, and the masks below leave them out of the rest.
  s.p = e / l;
  const auto v2 = x.v_norm.head(n).array().square();
  s.w = s.p.square() * v2;
  const auto nonzero = s.p != 0.0;
  const auto p2 = s.p.square();
  const Eigen::ArrayXd b2 =
      p.scale * p.scale * x.prod2.row(r).head(n).array() + x.scores.row(r).head(n).array().square();
  const auto spread2 = (x.v_norm.head(n).array() + o_norm).square();
  const double w_sum = s.w.sum();
  const int visible = static_cast<int>(nonzero.count());
  sc.p_weight += w_sum;
  sc.p_weight_sq += s.w.square().sum();
  sc.p_weight_below_max += sum_without(s.w, n, top);
  sc.p_weight_sq_below_max += sum_without(s.w.square(), n, top);
  sc.p_floor_weight += nonzero.select(v2, 0.0).sum() / (l * l);
  const double k_norm_max = nonzero.select(x.k_norm.head(n).array(), 0.0).maxCoeff();
  sc.max_score_magnitude = std::max(sc.max_score_magnitude, p.scale * x.q_norm(r) * k_norm_max);
  sc.score_weight += (p2 * b2 * spread2).sum();
  sc.exp_weight += (p2 * spread2).sum();
  sc.lse_score_rms = std::max(sc.lse_score_rms, std::sqrt((p2 * b2).sum()));
  sc.lse_score_mean = std::max(sc.lse_score_mean, (s.p * b2.sqrt()).sum());
  sc.p_concentration = std::max(sc.p_concentration, std::sqrt(p2.sum()));
  const double walk = o_norm * o_norm + w_sum;
  double len_power = 1.0;
  for (int power = 0; power < 3; ++power) {
    sc.walk_by_len[power] += len_power * walk;
    sc.o_sq_by_len[power] += len_power * o_norm * o_norm;
    len_power *= visible;
  }

  // Rounding buckets: the nonzero tokens grouped by their weight's bf16 and f16 code.
  if (!x.buckets.bf16 && !x.buckets.f16) return visible == 1;
  s.nonzero.clear();
  for (Eigen::Index j = 0; j < n; ++j) {
    if (s.p[j] != 0.0) s.nonzero.push_back(static_cast<std::uint32_t>(j));
  }
  if (x.buckets.bf16) {
    bucket_codes<Bf16Format>(e_row, s.nonzero, s.codes);
    stable_order_by_code(s.codes, s.order, s.sort);
    collect_buckets(MlaErrorScales::kPBucketBf16, top, s);
  }
  if (x.buckets.f16) {
    bucket_codes<F16Format>(e_row, s.nonzero, s.codes);
    stable_order_by_code(s.codes, s.order, s.sort);
    collect_buckets(MlaErrorScales::kPBucketF16, top, s);
  }
  return visible == 1;
}

}  // namespace

void add_row_error_scales(const MlaDecodeProblem& p, const OracleRequest& x, int row_begin, int row_end,
                          RowStatisticsScratch& scratch, MlaErrorScales& sc) {
  const int lv = p.kv_lora_rank;
  scratch.buckets.clear();
  for (int r = row_begin; r < row_end; ++r) {
    // Rows of one weighted token: O = v * kv_scale, which a kernel's fp32 gets exactly as the
    // oracle's float does, so their elements cannot flip however near a boundary they sit.
    const bool single_token = add_row(p, x, r, scratch, sc);
    const Eigen::Map<const Eigen::ArrayXd> o(x.o + static_cast<std::ptrdiff_t>(r) * lv, lv);
    for (Eigen::Index c = 0; c < lv; ++c) {
      const double rounded = round_to(p.o_dtype, static_cast<float>(o[c]));
      sc.o_round_sq += (rounded - o[c]) * (rounded - o[c]);
      if (!single_token) add_boundary_distance(p.o_dtype, o[c], sc);
    }
    sc.o_sq += o.square().sum();
    sc.o_quad += o.square().square().sum();
    if (lv > 0) sc.o_max_sq = std::max(sc.o_max_sq, o.square().maxCoeff());
    sc.o_elements += lv;
  }
  scratch.buckets.measure_coherent(x.values);
  scratch.buckets.add_terms(sc);
}

}  // namespace mlacheck
