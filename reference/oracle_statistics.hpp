#pragma once
// What the tight tolerance needs of the actual numbers (MlaErrorScales, core/tolerance.hpp),
// measured on one request's oracle arrays, a block of rows at a time so that blocks can run on
// several threads and be merged in a fixed order (reference/error_scales_merge.hpp).
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "core/mla_problem.hpp"
#include "core/tolerance.hpp"
#include "reference/bucket_grouping.hpp"
#include "reference/coherent_bucket_sums.hpp"
#include "reference/p_bucket_kinds.hpp"

namespace mlacheck {

using OracleMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// One request as the oracle left it. Rows are (query token, head), token-major; columns are the
// request's cached tokens in position order.
struct OracleRequest {
  const OracleMatrix& q;                   // rows x Lk, dequantised
  const OracleMatrix& k;                   // tokens x Lk, dequantised; values are the first Lv columns
  const OracleMatrix& scores;              // rows x tokens: s = scale q k^T, before the softmax
  const OracleMatrix& prod2;               // rows x tokens: sum_c q_rc^2 k_jc^2
  const OracleMatrix& e;                   // rows x tokens: exp(s - m), 0 where masked
  const Eigen::VectorXd& row_sum;          // l, 0 for a row that sees no token
  const Eigen::VectorXd& row_max;          // m
  const double* o;                         // rows x Lv, row-major: the normalised outputs
  const std::vector<int>& visible;         // per row: the tokens it sees (a prefix of the columns)
  const Eigen::VectorXd& q_norm;           // per row
  const Eigen::VectorXd& k_norm;           // per token
  const Eigen::VectorXd& v_norm;           // per token: of its first Lv channels
  const ValueChunks& values;               // V a few channels at a time, for the coherent sums
  PBucketKinds buckets;                    // the dtypes whose rounding buckets are measured
};

// Reused per thread, so that row after row allocates nothing once grown.
struct RowStatisticsScratch {
  Eigen::ArrayXd p, w;
  std::vector<std::uint32_t> nonzero;  // the row's tokens of nonzero weight, ascending
  std::vector<std::uint16_t> codes;    // their weights' bucket codes
  std::vector<std::uint32_t> order;    // positions into nonzero, sorted by code then token
  CodeSortScratch sort;
  BlockBuckets buckets;  // the block's rounding buckets
};

// Rows [row_begin, row_end) of the request: weights, rounding buckets, scores, running maxima
// and their outputs' rounding. Each row's bucketed terms are added after the block's other sums.
void add_row_error_scales(const MlaDecodeProblem& p, const OracleRequest& r, int row_begin, int row_end,
                          RowStatisticsScratch& scratch, MlaErrorScales& sc);

}  // namespace mlacheck
