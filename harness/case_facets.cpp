#include "harness/case_facets.hpp"

namespace mlacheck {

void add_block_size_buckets(int block_size, std::vector<std::string>& buckets) {
  if (block_size == 1) buckets.push_back(kBlockSizeOneBucket);
  if (block_size > 1 && block_size != 16 && block_size != 64) buckets.push_back(kOddBlockSizeBucket);
}

}  // namespace mlacheck
