#include "reference/oracle_request_stages.hpp"

#include <algorithm>
#include <limits>
#include <span>

#include "reference/error_scales_merge.hpp"
#include "reference/oracle_work_units.hpp"

namespace mlacheck {

namespace {

using FloatRowsMap = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
using FloatRowMap = Eigen::Map<const Eigen::RowVectorXf>;

// A kernel's float -> input-dtype conversion of its P tile (see PRoundingPoint::to_q_dtype).
template <class Block>
void round_like_kernel_p(Block&& e, DType t) {
  for (Eigen::Index r = 0; r < e.rows(); ++r) {
    for (Eigen::Index c = 0; c < e.cols(); ++c) e(r, c) = round_to(t, static_cast<float>(e(r, c)));
  }
}

Eigen::Map<OracleMatrix> request_o(const OracleCall& c, const OracleRequestWork& w) {
  const auto lv = static_cast<std::size_t>(c.p.kv_lora_rank);
  return {c.out.o.data() + w.first_row * lv, w.rows, c.p.kv_lora_rank};
}

OracleRequest statistics_view(const OracleCall& c, const OracleRequestWork& w) {
  return {w.q,       w.k,    w.scores, w.prod2,  w.s,      w.row_sum, w.row_max,
          request_o(c, w).data(), w.visible, w.q_norm, w.k_norm, w.v_norm, w.values, c.buckets};
}

}  // namespace

void begin_request(const OracleCall& c, int b, OracleRequestWork& w) {
  const MlaDecodeProblem& p = c.p;
  const int h = heads(p);
  const int width = lk(p);
  const int q_len = p.q_lens[static_cast<std::size_t>(b)];
  w.request = b;
  w.kv = p.kv_lens[static_cast<std::size_t>(b)];
  w.rows = q_len * h;
  w.first_row = static_cast<std::size_t>(c.qo[static_cast<std::size_t>(b)]) * static_cast<std::size_t>(h);
  // Exact in double, as the latents: an fp8 query's code times its float scale.
  w.q = FloatRowsMap(c.in.q.data() + w.first_row * static_cast<std::size_t>(width), w.rows, width).cast<double>() *
        static_cast<double>(p.q_scale);
  w.k.resize(w.kv, width);
  w.s.resize(w.rows, w.kv);
  w.row_max.resize(w.rows);
  w.row_sum.resize(w.rows);
  w.visible.resize(static_cast<std::size_t>(w.rows));
  for (int t = 0; t < q_len; ++t) std::fill_n(w.visible.begin() + t * h, h, visible_kv(p, b, t));
  w.key_chunk_abs_max.assign(static_cast<std::size_t>(key_chunk_count(w.kv)), 0.0);
  if (!c.statistics) return;
  w.q_sq = w.q.cwiseAbs2();
  w.q_norm = w.q.rowwise().norm();
  w.k_sq.resize(w.kv, width);
  w.scores.resize(w.rows, w.kv);
  w.prod2.resize(w.rows, w.kv);
  w.k_norm.resize(w.kv);
  w.v_norm.resize(w.kv);
  if (c.buckets.bf16 || c.buckets.f16) w.values.resize(w.kv, p.kv_lora_rank);
  w.block_scales.assign(static_cast<std::size_t>(row_block_count(w.rows)), MlaErrorScales{});
}

void run_key_chunk(const OracleCall& c, OracleRequestWork& w, int chunk) {
  const MlaDecodeProblem& p = c.p;
  const int width = lk(p);
  const int lv = p.kv_lora_rank;
  const IndexRange keys = key_chunk(w.kv, chunk);
  // K: exact in double, a cache value has at most 24 significant bits and so has the float scale,
  // so their product needs at most 48 of 53.
  const std::span<const std::int32_t> slots(c.pages.kv_indices.data() + c.pages.kv_indptr[static_cast<std::size_t>(w.request)],
                                            static_cast<std::size_t>(w.kv));
  const double kv_scale = p.kv_scale;
  for (int pos = keys.begin; pos < keys.end; ++pos) {
    const float* latent = c.in.kv_cache.data() + host_cache_index(p, slots[static_cast<std::size_t>(pos)]);
    w.k.row(pos) = FloatRowMap(latent, width).cast<double>() * kv_scale;
  }
  const auto k = w.k.middleRows(keys.begin, keys.size());
  // Columns of the whole request's products: each element sums the same Lk terms in the same order.
  w.s.middleCols(keys.begin, keys.size()).noalias() = p.scale * w.q * k.transpose();
  if (!c.statistics) return;
  w.key_chunk_abs_max[static_cast<std::size_t>(chunk)] = k.cwiseAbs().maxCoeff();
  w.scores.middleCols(keys.begin, keys.size()) = w.s.middleCols(keys.begin, keys.size());
  auto k_sq = w.k_sq.middleRows(keys.begin, keys.size());
  k_sq = k.cwiseAbs2();
  w.prod2.middleCols(keys.begin, keys.size()).noalias() = w.q_sq * k_sq.transpose();
  w.k_norm.segment(keys.begin, keys.size()) = k.rowwise().norm();
  w.v_norm.segment(keys.begin, keys.size()) = k.leftCols(lv).rowwise().norm();
  if (c.buckets.bf16 || c.buckets.f16) w.values.assign_rows(k.leftCols(lv), keys.begin);
}

void run_softmax_rows(const OracleCall& c, OracleRequestWork& w, int block) {
  const int h = heads(c.p);
  const IndexRange rows = row_block(w.rows, block);
  // The block's rows in runs of one query token, which see the same tokens (causal, aligned
  // bottom-right).
  for (int first = rows.begin; first < rows.end;) {
    const int last = std::min(rows.end, (first / h + 1) * h);
    const int n = last - first;
    const int visible = w.visible[static_cast<std::size_t>(first)];
    if (visible == 0) {  // an empty row (a padded request): sum 0 marks it for the identity
      w.row_max.segment(first, n).setZero();
      w.row_sum.segment(first, n).setZero();
      w.s.middleRows(first, n).setZero();
    } else {
      auto seen = w.s.block(first, 0, n, visible);
      auto m = w.row_max.segment(first, n);
      m = seen.rowwise().maxCoeff();
      seen.array().colwise() -= m.array();
      seen = seen.array().exp();
      w.row_sum.segment(first, n) = seen.rowwise().sum();
      if (c.p_dtype) round_like_kernel_p(seen, *c.p_dtype);
      w.s.block(first, visible, n, w.kv - visible).setZero();  // masked: contributes nothing to E V
    }
    first = last;
  }
}

void run_value_block(const OracleCall& c, OracleRequestWork& w, int block) {
  const IndexRange channels = value_block(c.p.kv_lora_rank, block);
  auto o = request_o(c, w).middleCols(channels.begin, channels.size());
  o.noalias() = w.s * w.k.middleCols(channels.begin, channels.size());
  o.array().colwise() /= w.row_sum.array();  // correctly rounded on every code path
  for (int r = 0; r < w.rows; ++r) {
    if (w.row_sum[r] == 0.0) o.row(r).setZero();  // an empty row's 0/0, before the scales read O
  }
}

void run_statistics_rows(const OracleCall& c, OracleRequestWork& w, int block, RowStatisticsScratch& scratch) {
  const IndexRange rows = row_block(w.rows, block);
  add_row_error_scales(c.p, statistics_view(c, w), rows.begin, rows.end, scratch,
                       w.block_scales[static_cast<std::size_t>(block)]);
}

void finish_request(const OracleCall& c, OracleRequestWork& w, MlaErrorScales* scales) {
  if (scales != nullptr && c.statistics) {
    MlaErrorScales part;
    if (w.q.size() > 0) part.max_abs_q = std::max(part.max_abs_q, w.q.cwiseAbs().maxCoeff());
    for (double m : w.key_chunk_abs_max) part.max_abs_kv = std::max(part.max_abs_kv, m);
    for (const MlaErrorScales& block : w.block_scales) merge_error_scales(part, block);
    merge_error_scales(*scales, part);
  }
  // Evaluated in Eigen's aligned storage, then copied: vectorised and scalar log differ in the
  // last bit, and evaluating into the output vector would let its heap alignment decide which
  // elements take which path, making results depend on the allocation.
  w.row_max.array() += w.row_sum.array().log();
  for (int r = 0; r < w.rows; ++r) {
    if (w.row_sum[r] == 0.0) w.row_max[r] = -std::numeric_limits<double>::infinity();  // saw no token
  }
  std::copy_n(w.row_max.data(), w.rows, c.out.lse.begin() + static_cast<std::ptrdiff_t>(w.first_row));
}

}  // namespace mlacheck
