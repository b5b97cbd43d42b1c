#pragma once
// --shard i/n: this process runs the cases whose index k has k % n == i, the rule GoogleTest
// applies for GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS, so CI can split `mlacheck run` and ctest
// the same way. Without --shard the GTEST_ variables are honoured when both are set.
#include <cstddef>
#include <optional>
#include <string>

namespace mlacheck::cli {

struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
  bool contains(std::size_t case_index) const { return case_index % count == index; }
};

// Parses "i/n" (0 <= i < n); throws std::invalid_argument naming the text.
Shard parse_shard(const std::string& text);
// --shard when given, else GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS, else the whole run.
Shard resolve_shard(const std::optional<std::string>& option);

}  // namespace mlacheck::cli
