#include "reference/mla_decode_reference.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "reference/error_scales_merge.hpp"
#include "reference/oracle_statistics.hpp"
#include "reference/page_indices.hpp"
#include "core/parallel_for.hpp"

namespace mlacheck {

namespace {

using MatrixRM = OracleMatrix;
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

void expect_size(std::size_t actual, std::size_t expected, const std::string& what) {
  if (actual != expected) {
    throw std::invalid_argument("MLA decode inputs: " + what + " holds " + std::to_string(actual) +
                                " values, the problem needs " + std::to_string(expected));
  }
}

}  // namespace

void check_mla_inputs(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  validate(p);
  const auto width = static_cast<std::size_t>(lk(p));
  expect_size(in.q.size(), static_cast<std::size_t>(total_q_tokens(p)) * static_cast<std::size_t>(heads(p)) * width,
              "q");
  expect_size(in.kv_cache.size(),
              static_cast<std::size_t>(host_cache_blocks(p)) * static_cast<std::size_t>(p.block_size) * width,
              "kv_cache (blocks first_block..num_blocks)");
}

MlaDecodeOutputs<double> faithful_oracle(const MlaDecodeProblem& p, const MlaTolerances& tol,
                                         MlaDecodeOutputs<double> exact) {
  if (tol.oracle_o_rounded) {
    for (double& v : exact.o) v = round_to(p.o_dtype, static_cast<float>(v));
  }
  return exact;
}

namespace {

// Rows of a request whose statistics are one part of MlaErrorScales: a fixed size, so the parts
// and the order they are merged in do not depend on the thread count.
constexpr int kStatisticsRowBlock = 8;

// One thread's arrays, reused across the requests it computes to keep allocations out of the loop
// (K's squares and V's chunks are tens of MB at kv 8192: allocated afresh, every request would
// page in new zeroed memory).
struct RequestWorkspace {
  MatrixRM k, k_sq, s, scores, prod2;
  Eigen::VectorXd row_max, row_sum;
  ValueChunks values;
  RowStatisticsScratch rows;
};

}  // namespace

std::optional<DType> oracle_p_dtype(const MlaDecodeProblem& p, PRoundingPoint rounding) {
  if (rounding == PRoundingPoint::kept_f32) return std::nullopt;
  const ResolvedPRounding resolved = resolve_p_rounding(p, rounding);
  if (resolved.split) {
    throw std::invalid_argument("the oracle rounds P to one dtype; " + resolved.describe +
                                " splits it, and is judged against the oracle with P kept");
  }
  if (!resolved.rounded) return std::nullopt;
  return resolved.dtype;
}

MlaDecodeOutputs<double> mla_decode_reference(const MlaDecodeProblem& p, const MlaDecodeInputs& in, PRoundingPoint rounding,
                                              MlaErrorScales* scales, int threads, PBucketKinds buckets) {
  if (scales != nullptr) *scales = MlaErrorScales{};
  check_mla_inputs(p, in);
  const std::optional<DType> p_dtype = oracle_p_dtype(p, rounding);
  const PageIndices pages = expand_page_indices(p, in);
  const int h = heads(p);
  const int width = lk(p);
  const int lv = p.kv_lora_rank;
  const std::vector<int> qo = qo_indptr(p);
  const auto tokens = static_cast<std::size_t>(qo.back());
  const int requests = batch(p);

  MlaDecodeOutputs<double> out;
  out.o.resize(tokens * static_cast<std::size_t>(h) * static_cast<std::size_t>(lv));
  out.lse.resize(tokens * static_cast<std::size_t>(h));

  // Enough requests keep every thread busy on whole requests; otherwise each request's statistics
  // rows are spread over the threads (its matrix products stay on the calling thread).
  threads = std::max(1, threads);
  const bool across_requests = threads > 1 && requests >= threads;
  const int row_threads = across_requests ? 1 : threads;
  std::vector<RequestWorkspace> workspaces(static_cast<std::size_t>(across_requests ? threads : row_threads));
  std::vector<MlaErrorScales> request_scales(scales != nullptr ? static_cast<std::size_t>(requests) : 0);

  const auto run_request = [&](int b, int worker) {
    RequestWorkspace& ws = workspaces[static_cast<std::size_t>(across_requests ? worker : 0)];
    MatrixRM& k = ws.k;
    MatrixRM& s = ws.s;
    Eigen::VectorXd& row_max = ws.row_max;
    Eigen::VectorXd& row_sum = ws.row_sum;
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
    if (scales != nullptr) ws.scores = s;       // the statistics read the scores themselves

    row_max.resize(rows);
    row_sum.resize(rows);
    std::vector<int> visible_of_row(static_cast<std::size_t>(rows));
    for (int t = 0; t < q_len; ++t) {
      const int visible = visible_kv(p, b, t);  // causal, aligned bottom-right
      std::fill_n(visible_of_row.begin() + t * h, h, visible);
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
      if (p_dtype) round_like_kernel_p(seen, *p_dtype);
      s.block(t * h, visible, h, kv - visible).setZero();  // masked: contributes nothing to E V
    }

    Eigen::Map<MatrixRM> o(out.o.data() + first_row * static_cast<std::size_t>(lv), rows, lv);
    o.noalias() = s * k.leftCols(lv);
    o.array().colwise() /= row_sum.array();  // correctly rounded on every code path
    for (int r = 0; r < rows; ++r) {
      if (row_sum[r] == 0.0) o.row(r).setZero();  // an empty row's 0/0, before the scales read O
    }
    if (scales != nullptr) {
      ws.k_sq = k.cwiseAbs2();
      ws.prod2.noalias() = q.cwiseAbs2() * ws.k_sq.transpose();
      OracleRequest request{q, k, ws.scores, ws.prod2, s, row_sum, row_max,
                            o.data(), std::move(visible_of_row), {}, {}, {}, ws.values, buckets};
      prepare_request_views(lv, request);
      MlaErrorScales& part = request_scales[static_cast<std::size_t>(b)];
      add_request_error_scales(request, part);
      const int blocks = (rows + kStatisticsRowBlock - 1) / kStatisticsRowBlock;
      std::vector<MlaErrorScales> block_scales(static_cast<std::size_t>(blocks));
      std::vector<RowStatisticsScratch> row_scratch(static_cast<std::size_t>(std::min(row_threads, blocks)));
      parallel_for(blocks, row_threads, [&](int block, int row_worker) {
        RowStatisticsScratch& scratch = row_threads == 1 ? ws.rows : row_scratch[static_cast<std::size_t>(row_worker)];
        add_row_error_scales(p, request, block * kStatisticsRowBlock, std::min(rows, (block + 1) * kStatisticsRowBlock),
                             scratch, block_scales[static_cast<std::size_t>(block)]);
      });
      for (const MlaErrorScales& block : block_scales) merge_error_scales(part, block);
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
  };
  parallel_for(requests, across_requests ? threads : 1, run_request);
  if (scales != nullptr) {
    for (const MlaErrorScales& part : request_scales) merge_error_scales(*scales, part);
  }
  return out;
}

}  // namespace mlacheck
