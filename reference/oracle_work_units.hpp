#pragma once
// How the oracle cuts one case into units of work for its threads (mla_decode_reference). The cut
// is fixed by the problem alone, never by the thread count, and every result is combined in unit
// order, so outputs and statistics are bit-identical for every count.
//
// Per request, in stages (each a pass over the units of a few requests at once):
//   key chunks  (tokens)   K gathered, S = scale Q K^T, the statistics' scores, sum q^2 k^2, the
//                          tokens' norms and value chunks: the columns of each product;
//   row blocks  (rows)     the softmax (row max, exp, row sum: a row needs all its keys), then
//                          the tight tolerance's row statistics (reference/oracle_statistics.hpp);
//   value blocks (channels) O = E V / l, a block of O's columns.
// A column block of an Eigen product sums each element over the same inner dimension in the same
// order as the whole product, so the products are those of the unsplit request: key chunks start
// at multiples of kOracleKeyChunk and value blocks at multiples of kOracleValueColumns (multiples of
// the product kernels' column groups), and the last chunk or block takes the remainder, so that
// none is narrower than the whole (a one-column product would take Eigen's matrix-vector path).
#include <vector>

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
