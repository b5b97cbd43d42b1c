#pragma once
// One request of the oracle (reference/mla_decode_reference.hpp) in the stages that
// reference/oracle_work_units.hpp cuts it into: begin, then its key chunks, its softmax row
// blocks, its value blocks and its statistics row blocks, each stage's units independent of one
// another, then finish. Each unit writes only its own part of the request's arrays.
#include <Eigen/Core>
#include <cstddef>
#include <optional>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/tolerance.hpp"
#include "reference/coherent_bucket_sums.hpp"
#include "reference/oracle_statistics.hpp"
#include "reference/p_bucket_kinds.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck {

// What every request of one call shares.
struct OracleCall {
  const MlaDecodeProblem& p;
  const MlaDecodeInputs& in;
  const PageIndices& pages;
  const std::vector<int>& qo;          // qo_indptr
  std::optional<DType> p_dtype;        // where E is rounded before E V
  bool statistics = false;             // measure MlaErrorScales
  PBucketKinds buckets;
  MlaDecodeOutputs<double>& out;
};

// One request's arrays, reused by the next request given the same slot so that allocations stay
// out of the loop (K's squares and V's chunks are tens of MB at kv 8192: allocated afresh, every
// request would page in new zeroed memory).
struct OracleRequestWork {
  int request = 0, kv = 0, rows = 0;
  std::size_t first_row = 0;  // of the request's rows in O and LSE
  OracleMatrix q, q_sq, k, k_sq, s, scores, prod2;  // s is overwritten by E in the softmax
  Eigen::VectorXd row_max, row_sum, q_norm, k_norm, v_norm;
  std::vector<int> visible;              // per row
  std::vector<double> key_chunk_abs_max;  // per key chunk: the largest |cache value|
  ValueChunks values;
  std::vector<MlaErrorScales> block_scales;  // per statistics row block
};

// Sizes w for request b and fills what is per row: Q, its squares and norms, the visible tokens.
void begin_request(const OracleCall& c, int b, OracleRequestWork& w);
// Key chunk `chunk`: its tokens' latents, their columns of S (and, with statistics, of the scores
// and of the squares' product), their norms and value chunks.
void run_key_chunk(const OracleCall& c, OracleRequestWork& w, int chunk);
// Row block `block`: the softmax of its rows, S turned into E in place, the row max and sum.
void run_softmax_rows(const OracleCall& c, OracleRequestWork& w, int block);
// Value block `block`: those columns of O = E V / l; an empty row's are 0.
void run_value_block(const OracleCall& c, OracleRequestWork& w, int block);
// Row block `block`'s statistics into w.block_scales[block], with one thread's scratch.
void run_statistics_rows(const OracleCall& c, OracleRequestWork& w, int block, RowStatisticsScratch& scratch);
// The request's LSE, and with statistics its scales merged into `scales` (request-wide maxima,
// then its row blocks in order).
void finish_request(const OracleCall& c, OracleRequestWork& w, MlaErrorScales* scales);

}  // namespace mlacheck
