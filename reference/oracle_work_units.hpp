#pragma once
// How the oracle cuts one case into units of work for its threads (mla_decode_reference). The cut
// is fixed by the problem alone, never by the thread count, and every result is combined in unit
// order, so outputs and statistics are bit-identical for every count.
//
// Per request, in stages (the requests of a wave, up to one a thread, pass each stage together):
//   key chunks   (tokens)   K gathered, those columns of S = scale Q K^T, of the statistics'
//                           scores and of sum q^2 k^2, the tokens' norms and value chunks;
//   row blocks   (rows)     the softmax (a row's max and sum need every key's score, so it follows
//                           the key chunks), then the tight tolerance's row statistics
//                           (reference/oracle_statistics.hpp);
//   value blocks (channels) those columns of O = E V / l.
// No sum changes order: the softmax and the statistics are per row, and a column block of an Eigen
// product sums each element over the same inner dimension as the whole product, with the same
// bits where the block starts on a boundary of the kernel's groups. Eigen computes the row-major O
// as its transpose, so O's channels are the GEMM kernel's rows, taken 12 at a time on AVX2 (32 on
// the matrix-vector path of a one-row request): kOracleValueColumns is a multiple of both. The last
// chunk or block takes the remainder, so none is narrower than the whole (a one-column product
// would take Eigen's matrix-vector path). tests/oracle_work_units_test.cpp holds split requests to
// the unsplit implementation bit for bit.

#include "core/mla_problem.hpp"

namespace mlacheck {

inline constexpr int kOracleKeyChunk = 256;      // tokens
inline constexpr int kOracleRowBlock = 8;        // rows (query token, head)
inline constexpr int kOracleValueColumns = 96;   // channels of O

struct IndexRange {
  int begin = 0;
  int end = 0;
  int size() const { return end - begin; }
};

// Chunks [i c, (i + 1) c) with the last one extended to `size`: max(1, size / c) of them, none
// for size 0.
int key_chunk_count(int tokens);
IndexRange key_chunk(int tokens, int chunk);
int value_block_count(int lv);
IndexRange value_block(int lv, int block);
// Blocks of kOracleRowBlock rows, the last one shorter: ceil(rows / kOracleRowBlock).
int row_block_count(int rows);
IndexRange row_block(int rows, int block);

// The units of a whole problem, per stage (summed over its requests).
struct OracleWorkUnits {
  int key_chunks = 0;
  int row_blocks = 0;
  int value_blocks = 0;
  int fewest() const;  // the smallest of the three: the most threads every stage can keep busy
};
OracleWorkUnits oracle_work_units(const MlaDecodeProblem& p);

}  // namespace mlacheck
