#include "device/staging/block_table_layout.hpp"

#include <stdexcept>

namespace mlacheck {

std::string staging_where(const MlaDecodeProblem& p) { return "staging of " + p.name + ": "; }

void expect_input_elements(const MlaDecodeProblem& p, const char* tensor, std::size_t got, std::size_t want) {
  if (got != want) {
    throw std::invalid_argument(staging_where(p) + "input " + tensor + " has " + std::to_string(got) +
                                " elements, the problem needs " + std::to_string(want));
  }
}

std::vector<std::int32_t> engine_block_table(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int width) {
  const int rows = batch(p);
  const int needed = max_blocks_per_request(p);
  if (in.block_table_stride < needed) {
    throw std::invalid_argument(staging_where(p) + "input block_table_stride " + std::to_string(in.block_table_stride) +
                                " is shorter than the " + std::to_string(needed) + " blocks the longest request needs");
  }
  if (width < needed) {
    throw std::invalid_argument(staging_where(p) + "the staged block table's rows of " + std::to_string(width) +
                                " entries are shorter than the " + std::to_string(needed) +
                                " blocks the longest request needs");
  }
  expect_input_elements(p, "block_table", in.block_table.size(),
                        static_cast<std::size_t>(rows) * static_cast<std::size_t>(in.block_table_stride));
  std::vector<std::int32_t> table(static_cast<std::size_t>(rows) * static_cast<std::size_t>(width), -1);
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < blocks_for(p, r); ++j) {
      const std::int32_t block =
          in.block_table[static_cast<std::size_t>(r) * static_cast<std::size_t>(in.block_table_stride) +
                         static_cast<std::size_t>(j)];
      if (block < p.first_block || block >= p.num_blocks) {
        throw std::invalid_argument(staging_where(p) + "input block_table[" + std::to_string(r) + "][" +
                                    std::to_string(j) + "] = " + std::to_string(block) + " is outside the blocks [" +
                                    std::to_string(p.first_block) + ", " + std::to_string(p.num_blocks) +
                                    ") the inputs hold");
      }
      table[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(j)] = block;
    }
  }
  return table;
}

}  // namespace mlacheck
