#include "device/platform/guard_bytes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>

namespace mlacheck {
namespace {

using Guard = std::array<std::byte, kGuardBytes>;

Guard intact() {
  Guard g{};
  std::copy(guard_pattern().begin(), guard_pattern().end(), g.begin());
  return g;
}

TEST(GuardBytes, PatternVariesSoARepeatedValueCannotMatchIt) {
  const std::set<std::byte> distinct(guard_pattern().begin(), guard_pattern().end());
  EXPECT_GT(distinct.size(), 200u);
}

TEST(GuardBytes, IntactGuardsHaveNoBreach) {
  EXPECT_TRUE(find_guard_breaches("o", intact(), intact()).empty());
}

TEST(GuardBytes, OverrunByOneByteIsAtGapZeroAfterTheEnd) {
  Guard back = intact();
  back[0] = ~back[0];
  const auto breaches = find_guard_breaches("o", intact(), back);
  ASSERT_EQ(breaches.size(), 1u);
  EXPECT_EQ(breaches[0].buffer, "o");
  EXPECT_EQ(breaches[0].side, GuardSide::back);
  EXPECT_EQ(breaches[0].changed_bytes, 1u);
  EXPECT_EQ(breaches[0].gap, 0u);
}

TEST(GuardBytes, UnderrunReportsTheChangeNearestTheStart) {
  Guard front = intact();
  front[kGuardBytes - 3] = ~front[kGuardBytes - 3];
  front[10] = ~front[10];
  const auto breaches = find_guard_breaches("lse", front, intact());
  ASSERT_EQ(breaches.size(), 1u);
  EXPECT_EQ(breaches[0].side, GuardSide::front);
  EXPECT_EQ(breaches[0].changed_bytes, 2u);
  EXPECT_EQ(breaches[0].gap, 2u);
}

TEST(GuardBytes, ZeroedGuardsBreakBothSides) {
  const Guard zero{};
  const auto breaches = find_guard_breaches("o", zero, zero);
  ASSERT_EQ(breaches.size(), 2u);
  EXPECT_EQ(breaches[0].side, GuardSide::front);
  EXPECT_EQ(breaches[1].side, GuardSide::back);
}

}  // namespace
}  // namespace mlacheck
