#pragma once
// The oracle's statistics as they were before issue 29 (commit d1b5b62's
// reference/mla_decode_reference.cpp, copied unchanged but for this namespace and the function's
// name): a per-row std::sort by rounding bucket and a scalar per-token loop. The reference twin that
// oracle_statistics_test holds the linear-time statistics against; not used elsewhere.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/tolerance.hpp"
#include "reference/mla_decode_reference.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck::legacy_twin {

namespace {


using MatrixRM = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using FloatRowsMap = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
using FloatRowMap = Eigen::Map<const Eigen::RowVectorXf>;

// K of one request: its latents in token order, dequantised. Exact in double: a cache value has at
// most 24 significant bits and so has the float scale, so their product needs at most 48 of 53.
void gather_latents(const MlaDecodeProblem& p, const MlaDecodeInputs& in, std::span<const std::int32_t> slots,
                    MatrixRM& k) {
  const int width = lk(p);
  const double kv_scale = p.kv_scale;
  k.resize(static_cast<Eigen::Index>(slots.size()), width);
  for (std::size_t pos = 0; pos < slots.size(); ++pos) {
    const float* latent = in.kv_cache.data() + host_cache_index(p, slots[pos]);
    k.row(static_cast<Eigen::Index>(pos)) = FloatRowMap(latent, width).cast<double>() * kv_scale;
  }
}

// A kernel's float -> input-dtype conversion of its P tile (see PRoundingPoint::to_q_dtype).
template <class Block>
void round_like_kernel_p(Block&& e, DType t) {
  for (Eigen::Index r = 0; r < e.rows(); ++r) {
    for (Eigen::Index c = 0; c < e.cols(); ++c) e(r, c) = round_to(t, static_cast<float>(e(r, c)));
  }
}

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

// Row r's P rounding weights: per token (MlaErrorScales::p_weight and the rest), and per rounding
// bucket of bf16 and f16 (p_bucketed): a kernel rounds each weight once, so the tokens whose weights
// round to one value share nearly one error and add up coherently -- a bucket G is one term
// max(||sum_G p_j v_j||^2, sum_G p_j^2 ||v_j||^2). `top` (the row's largest
// weight, exactly 1 in a declared kernel) is left out of the below-max sums.
template <class EMat, class VMat>
void add_p_rounding_weights(const EMat& e, Eigen::Index r, double l, const VMat& v, const Eigen::VectorXd& v_norm,
                            Eigen::Index top, MlaErrorScales& sc) {
  struct Token {
    float bucket;    // the weight rounded to the bucket's dtype
    Eigen::Index j;  // the token
    double p;        // its weight p_j
    double w;        // p_j^2 ||v_j||^2
  };
  std::vector<Token> tokens;
  for (Eigen::Index j = 0; j < e.cols(); ++j) {
    const double pj = e(r, j) / l;
    if (pj == 0.0) continue;
    const double w = pj * pj * v_norm(j) * v_norm(j);
    tokens.push_back({0.0f, j, pj, w});
    sc.p_weight += w;
    sc.p_weight_sq += w * w;
    if (j != top) {
      sc.p_weight_below_max += w;
      sc.p_weight_sq_below_max += w * w;
    }
  }
  Eigen::RowVectorXd sum(v.cols());
  const std::pair<int, DType> kinds[] = {{MlaErrorScales::kPBucketBf16, DType::bf16},
                                         {MlaErrorScales::kPBucketF16, DType::f16}};
  for (auto [index, dtype] : kinds) {
    // Each weight rounded once, then sorted by (bucket, token): the sums run in token order.
    for (Token& t : tokens) t.bucket = round_to(dtype, static_cast<float>(e(r, t.j)));
    std::sort(tokens.begin(), tokens.end(),
              [](const Token& a, const Token& b) { return a.bucket != b.bucket ? a.bucket < b.bucket : a.j < b.j; });
    MlaErrorScales::PWeights& out = sc.p_bucketed[index];
    for (std::size_t a = 0; a < tokens.size();) {
      std::size_t b = a + 1;
      while (b < tokens.size() && tokens[b].bucket == tokens[a].bucket) ++b;
      double independent = 0.0, independent_below = 0.0;
      const Token* top_token = nullptr;  // the row's top token, where this bucket holds it
      for (std::size_t i = a; i < b; ++i) {
        independent += tokens[i].w;
        if (tokens[i].j != top) independent_below += tokens[i].w;
        if (tokens[i].j == top) top_token = &tokens[i];
      }
      // A bucket of one token is its own independent term; only larger ones need the vector sum.
      double coherent = 0.0, coherent_below = 0.0;
      if (b - a > 1) {
        sum.setZero();
        for (std::size_t i = a; i < b; ++i) {
          if (tokens[i].j != top) sum += tokens[i].p * v.row(tokens[i].j);
        }
        coherent_below = sum.squaredNorm();
        if (top_token != nullptr) {
          sum += top_token->p * v.row(top);
          coherent = sum.squaredNorm();
        } else {
          coherent = coherent_below;
        }
      }
      const double w = std::max(coherent, independent);
      const double w_below = std::max(coherent_below, independent_below);
      out.all += w;
      out.all_sq += w * w;
      out.below_max += w_below;
      out.below_max_sq += w_below * w_below;
      a = b;
    }
  }
}

// One request's contribution to MlaErrorScales: e holds the rows' weights exp(s - m) (zero where
// masked), row_sum their sums, o the normalised output rows.
// prod2 holds sum_c q_rc^2 k_jc^2 for every pair.
template <class EMat, class OMat>
void add_error_scales(const MlaDecodeProblem& p, const MatrixRM& q, const MatrixRM& k, const MatrixRM& prod2,
                      const EMat& e, const Eigen::VectorXd& row_sum, const Eigen::VectorXd& row_max, const OMat& o,
                      MlaErrorScales& sc) {
  const int lv = p.kv_lora_rank;
  const double scale2 = p.scale * p.scale;
  const Eigen::VectorXd q_norm = q.rowwise().norm();
  const Eigen::VectorXd k_norm = k.rowwise().norm();
  const Eigen::VectorXd v_norm = k.leftCols(lv).rowwise().norm();
  sc.max_abs_q = std::max(sc.max_abs_q, q.cwiseAbs().maxCoeff());
  if (k.size() > 0) sc.max_abs_kv = std::max(sc.max_abs_kv, k.cwiseAbs().maxCoeff());
  // Rows of one weighted token: O = v * kv_scale, which a kernel's fp32 gets exactly as the oracle's
  // float does, so their elements cannot flip however near a boundary they sit.
  std::vector<char> single_token(static_cast<std::size_t>(e.rows()), 0);
  for (Eigen::Index r = 0; r < e.rows(); ++r) {
    // A row that sees no token (a padded request) is the exact identity, O 0 and LSE -inf: no
    // rounding reaches it, and its 0/0 weights and -inf max must not reach the scales.
    if (!(row_sum(r) > 0.0)) continue;
    const double a_row = p.scale * q_norm(r);
    sc.max_abs_row_max = std::max(sc.max_abs_row_max, std::abs(row_max(r)));
    const double o_norm = o.row(r).norm();
    const double l = row_sum(r);
    double p2b2 = 0.0, pb = 0.0, p2 = 0.0, walk = o_norm * o_norm;
    int visible = 0;
    Eigen::Index top = 0;  // the row's largest-score token: weight exp(0) = 1 before normalising
    for (Eigen::Index j = 1; j < e.cols(); ++j) top = e(r, j) > e(r, top) ? j : top;
    for (Eigen::Index j = 0; j < e.cols(); ++j) {
      const double pj = e(r, j) / l;
      if (pj == 0.0) continue;
      const double score = row_max(r) + std::log(e(r, j));
      const double b = std::sqrt(scale2 * prod2(r, j) + score * score);
      sc.max_score_magnitude = std::max(sc.max_score_magnitude, a_row * k_norm(j));
      const double spread = v_norm(j) + o_norm;
      const double w = pj * pj * v_norm(j) * v_norm(j);
      p2b2 += pj * pj * b * b;
      pb += pj * b;
      p2 += pj * pj;
      sc.p_floor_weight += v_norm(j) * v_norm(j) / (l * l);
      walk += w;
      ++visible;
      sc.score_weight += pj * pj * b * b * spread * spread;
      sc.exp_weight += pj * pj * spread * spread;
    }
    add_p_rounding_weights(e, r, l, k.leftCols(lv), v_norm, top, sc);
    int rises_forward = 0, rises_backward = 0;
    double best = 0.0;
    for (Eigen::Index j = 0; j < e.cols(); ++j) {
      if (e(r, j) > best) ++rises_forward;
      best = std::max(best, e(r, j));
    }
    best = 0.0;
    for (Eigen::Index j = e.cols(); j-- > 0;) {
      if (e(r, j) > best) ++rises_backward;
      best = std::max(best, e(r, j));
    }
    sc.max_running_max_rises =
        std::max(sc.max_running_max_rises, static_cast<double>(std::max(rises_forward, rises_backward)));
    single_token[static_cast<std::size_t>(r)] = visible == 1 ? 1 : 0;
    double len_power = 1.0;
    for (int power = 0; power < 3; ++power) {
      sc.walk_by_len[power] += len_power * walk;
      sc.o_sq_by_len[power] += len_power * o_norm * o_norm;
      len_power *= visible;
    }
    sc.lse_score_rms = std::max(sc.lse_score_rms, std::sqrt(p2b2));
    sc.lse_score_mean = std::max(sc.lse_score_mean, pb);
    sc.p_concentration = std::max(sc.p_concentration, std::sqrt(p2));
  }
  for (Eigen::Index i = 0; i < o.rows(); ++i) {
    for (Eigen::Index c = 0; c < o.cols(); ++c) {
      const double rounded = round_to(p.o_dtype, static_cast<float>(o(i, c)));
      sc.o_round_sq += (rounded - o(i, c)) * (rounded - o(i, c));
      if (single_token[static_cast<std::size_t>(i)] == 0) add_boundary_distance(p.o_dtype, o(i, c), sc);
    }
  }
  const auto sq = o.array().square();
  sc.o_sq += sq.sum();
  sc.o_quad += sq.square().sum();
  if (o.size() > 0) sc.o_max_sq = std::max(sc.o_max_sq, sq.maxCoeff());
  sc.o_elements += static_cast<double>(o.size());
}

}  // namespace

inline MlaDecodeOutputs<double> legacy_mla_decode_reference(const MlaDecodeProblem& p, const MlaDecodeInputs& in, PRoundingPoint rounding,
                                              MlaErrorScales* scales) {
  if (scales != nullptr) *scales = MlaErrorScales{};
  check_mla_inputs(p, in);
  const PageIndices pages = expand_page_indices(p, in);
  const int h = heads(p);
  const int width = lk(p);
  const int lv = p.kv_lora_rank;
  const std::vector<int> qo = qo_indptr(p);
  const auto tokens = static_cast<std::size_t>(qo.back());

  MlaDecodeOutputs<double> out;
  out.o.resize(tokens * static_cast<std::size_t>(h) * static_cast<std::size_t>(lv));
  out.lse.resize(tokens * static_cast<std::size_t>(h));

  MatrixRM k, s, prod2;  // reused across requests to keep allocations out of the loop
  Eigen::VectorXd row_max, row_sum;
  for (int b = 0; b < batch(p); ++b) {
    const int kv = p.kv_lens[b];
    const int q_len = p.q_lens[b];
    const int rows = q_len * h;
    const auto first_row = static_cast<std::size_t>(qo[b]) * static_cast<std::size_t>(h);
    gather_latents(p, in, std::span(pages.kv_indices).subspan(static_cast<std::size_t>(pages.kv_indptr[b]),
                                                              static_cast<std::size_t>(kv)),
                   k);
    // Exact in double, as the latents: an fp8 query's code times its float scale.
    const MatrixRM q = FloatRowsMap(in.q.data() + first_row * static_cast<std::size_t>(width), rows, width)
                           .cast<double>() *
                       static_cast<double>(p.q_scale);
    s.resize(rows, kv);
    s.noalias() = p.scale * q * k.transpose();  // S, overwritten in place by E below

    row_max.resize(rows);
    row_sum.resize(rows);
    for (int t = 0; t < q_len; ++t) {
      const int visible = visible_kv(p, b, t);  // causal, aligned bottom-right
      if (visible == 0) {  // an empty row (a padded request): sum 0 marks it for the identity below
        row_max.segment(t * h, h).setZero();
        row_sum.segment(t * h, h).setZero();
        continue;
      }
      auto seen = s.block(t * h, 0, h, visible);
      auto m = row_max.segment(t * h, h);
      m = seen.rowwise().maxCoeff();
      seen.array().colwise() -= m.array();
      seen = seen.array().exp();
      row_sum.segment(t * h, h) = seen.rowwise().sum();
      if (rounding == PRoundingPoint::to_q_dtype) round_like_kernel_p(seen, p.q_dtype);
      s.block(t * h, visible, h, kv - visible).setZero();  // masked: contributes nothing to E V
    }

    Eigen::Map<MatrixRM> o(out.o.data() + first_row * static_cast<std::size_t>(lv), rows, lv);
    o.noalias() = s * k.leftCols(lv);
    o.array().colwise() /= row_sum.array();  // correctly rounded on every code path
    for (int r = 0; r < rows; ++r) {
      if (row_sum[r] == 0.0) o.row(r).setZero();  // an empty row's 0/0, before the scales read O
    }
    if (scales != nullptr) {
      prod2.noalias() = q.cwiseAbs2() * k.cwiseAbs2().transpose();
      add_error_scales(p, q, k, prod2, s, row_sum, row_max, o, *scales);
    }
    // Evaluated in Eigen's aligned storage, then copied: vectorised and scalar log differ in the
    // last bit, and evaluating into the output vector would let its heap alignment decide which
    // elements take which path, making results depend on the allocation.
    row_max.array() += row_sum.array().log();
    for (int r = 0; r < rows; ++r) {
      if (row_sum[r] == 0.0) {  // saw no token: the identity of the LSE merge, O 0 and LSE -inf
        o.row(r).setZero();
        row_max[r] = -std::numeric_limits<double>::infinity();
      }
    }
    std::copy_n(row_max.data(), rows, out.lse.begin() + static_cast<std::ptrdiff_t>(first_row));
  }
  return out;
}

}  // namespace mlacheck::legacy_twin
