#pragma once
// --shard i/n: this process runs the cases whose index k has k % n == i, the rule GoogleTest
// applies for GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS, so CI can split `mlacheck run` and ctest
// the same way. Without --shard the GTEST_ variables are honoured when both are set.
//
// --shard auto reads the shard from the scheduler that started the process (docs/ci.md):
//   Slurm job arrays:          SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (with
//                              SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_STEP, so --array=1-8 or
//                              0-14:2 map onto 0..n-1);
//   Kubernetes Indexed Jobs:   JOB_COMPLETION_INDEX, with the count in MLACHECK_SHARD_COUNT (the
//                              Job's completions; Kubernetes does not export it);
//   GoogleTest's variables, as without --shard.
// Whatever it finds must be complete and consistent, or it is an error naming the variables.
#include <cstddef>
#include <functional>
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

// A variable's value, or null when unset (std::getenv; tests pass their own).
using Environment = std::function<const char*(const char*)>;
// The shard --shard auto means in `env`; throws std::invalid_argument when no scheduler's
// variables are set, or they are incomplete or inconsistent.
Shard shard_from_scheduler(const Environment& env);

// --shard when given ("auto": shard_from_scheduler), else GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS,
// else the whole run.
Shard resolve_shard(const std::optional<std::string>& option);

}  // namespace mlacheck::cli
