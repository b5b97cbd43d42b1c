#include "reference/oracle_work_units.hpp"

#include <algorithm>

namespace mlacheck {

namespace {

int fixed_count(int size, int width) { return size <= 0 ? 0 : std::max(1, size / width); }

IndexRange fixed_range(int size, int width, int index) {
  const int count = fixed_count(size, width);
  return {index * width, index + 1 == count ? size : (index + 1) * width};
}

}  // namespace

int key_chunk_count(int tokens) { return fixed_count(tokens, kOracleKeyChunk); }
IndexRange key_chunk(int tokens, int chunk) { return fixed_range(tokens, kOracleKeyChunk, chunk); }
int value_block_count(int lv) { return fixed_count(lv, kOracleValueColumns); }
IndexRange value_block(int lv, int block) { return fixed_range(lv, kOracleValueColumns, block); }

int row_block_count(int rows) { return (std::max(0, rows) + kOracleRowBlock - 1) / kOracleRowBlock; }
IndexRange row_block(int rows, int block) {
  return {block * kOracleRowBlock, std::min(rows, (block + 1) * kOracleRowBlock)};
}

int OracleWorkUnits::fewest() const { return std::min({key_chunks, row_blocks, value_blocks}); }

OracleWorkUnits oracle_work_units(const MlaDecodeProblem& p) {
  OracleWorkUnits u;
  for (int b = 0; b < batch(p); ++b) {
    u.key_chunks += key_chunk_count(p.kv_lens[static_cast<std::size_t>(b)]);
    u.row_blocks += row_block_count(p.q_lens[static_cast<std::size_t>(b)] * heads(p));
    u.value_blocks += value_block_count(p.kv_lora_rank);
  }
  return u;
}

}  // namespace mlacheck
