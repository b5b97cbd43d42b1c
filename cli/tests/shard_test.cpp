// --shard parsing and the GoogleTest sharding rule.
#include <gtest/gtest.h>

#include <cstdlib>

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

}  // namespace
}  // namespace mlacheck::cli
