// --shard parsing and the GoogleTest sharding rule.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include "cli/shard.hpp"

namespace mlacheck::cli {
namespace {

TEST(Shard, ParsesAndDealsLikeGoogleTest) {
  const Shard s = parse_shard("1/3");
  EXPECT_FALSE(s.contains(0));
  EXPECT_TRUE(s.contains(1));
  EXPECT_TRUE(s.contains(4));
  EXPECT_FALSE(s.contains(5));
}

TEST(Shard, RefusesMalformedText) {
  for (const char* bad : {"3/3", "1", "a/3", "1/0", "/3", "1/", "-1/3"}) {
    EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
  }
}

TEST(Shard, HonoursGoogleTestVariablesWithoutTheOption) {
  ::setenv("GTEST_SHARD_INDEX", "2", 1);
  ::setenv("GTEST_TOTAL_SHARDS", "4", 1);
  const Shard s = resolve_shard(std::nullopt);
  ::unsetenv("GTEST_SHARD_INDEX");
  ::unsetenv("GTEST_TOTAL_SHARDS");
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(resolve_shard(std::string("0/2")).count, 2u);
  EXPECT_EQ(resolve_shard(std::nullopt).count, 1u);
}

// An environment of its own, so the tests neither see nor change the process's.
Environment env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::pair<std::size_t, std::size_t> auto_shard(std::map<std::string, std::string> vars) {
  const Shard s = shard_from_scheduler(env_of(std::move(vars)));
  return {s.index, s.count};
}

TEST(ShardAuto, ReadsSlurmArrays) {
  EXPECT_EQ(auto_shard({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}), (std::pair<std::size_t, std::size_t>{3, 8}));
  // --array=1-8 and --array=0-14:2 map onto 0..n-1.
  EXPECT_EQ(auto_shard({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}),
            (std::pair<std::size_t, std::size_t>{0, 8}));
  EXPECT_EQ(auto_shard({{"SLURM_ARRAY_TASK_ID", "6"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_STEP", "2"},
                        {"SLURM_ARRAY_TASK_COUNT", "8"}}),
            (std::pair<std::size_t, std::size_t>{3, 8}));
  EXPECT_THROW(auto_shard({{"SLURM_ARRAY_TASK_ID", "3"}}), std::invalid_argument);
  EXPECT_THROW(auto_shard({{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}), std::invalid_argument);
  EXPECT_THROW(auto_shard({{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}), std::invalid_argument);
}

TEST(ShardAuto, ReadsKubernetesIndexedJobs) {
  EXPECT_EQ(auto_shard({{"JOB_COMPLETION_INDEX", "2"}, {"MLACHECK_SHARD_COUNT", "4"}}),
            (std::pair<std::size_t, std::size_t>{2, 4}));
  EXPECT_THROW(auto_shard({{"JOB_COMPLETION_INDEX", "2"}}), std::invalid_argument);  // the count is not exported
}

TEST(ShardAuto, FallsBackToGoogleTestVariablesAndOtherwiseRefuses) {
  EXPECT_EQ(auto_shard({{"GTEST_SHARD_INDEX", "1"}, {"GTEST_TOTAL_SHARDS", "2"}}), (std::pair<std::size_t, std::size_t>{1, 2}));
  EXPECT_THROW(auto_shard({}), std::invalid_argument);
}

}  // namespace
}  // namespace mlacheck::cli
