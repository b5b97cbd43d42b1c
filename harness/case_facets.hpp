#pragma once
// What a case is, in the terms a report groups, plots and matches cases by: each op's `facets`
// hook (harness/op_registry.hpp) reads them off its descriptor, so reports/ and the known-bug
// table never need to know which ops exist.
#include <string>
#include <vector>

namespace mlacheck {

struct CaseFacets {
  bool parsed = false;       // false: the row's repro is no case of this version (shown ungrouped)
  std::string dtype;         // the cache dtype, what error budgets depend on most
  int kv_len = 0;            // the longest kv_len of the case
  int heads = 0;             // per-rank query heads, or kv heads for an op without queries
  int q_len = 0;             // the longest q_len; 0 for an op without queries
  std::vector<int> q_lens;   // every request's q_len; empty for an op without queries
  int tp = 1;
  int block_size = 0;
  std::vector<std::string> buckets;  // the op's coverage buckets (its `coverage_buckets`) the case is in
};

// The block-size buckets, which every op with a paged cache shares.
inline constexpr const char* kBlockSizeOneBucket = "block_size 1";
inline constexpr const char* kOddBlockSizeBucket = "block_size > 1, not 16 or 64";
void add_block_size_buckets(int block_size, std::vector<std::string>& buckets);

}  // namespace mlacheck
