#include "device/platform/canary_report.hpp"

#include <gtest/gtest.h>

namespace mlacheck {
namespace {

TEST(CanaryReport, IntactWhenNothingBroke) {
  const CanaryReport report;
  EXPECT_TRUE(report.intact());
  EXPECT_EQ(report.describe(), "guards intact");
}

TEST(CanaryReport, DescribesEachBreachWithBufferSideAndDistance) {
  const CanaryReport report{{{"out", GuardSide::back, 4, 0}, {"lse", GuardSide::front, 2, 6}}};
  EXPECT_FALSE(report.intact());
  EXPECT_EQ(report.describe(),
            "buffer 'out': 4 guard bytes after the end changed, nearest 0 bytes past the end; "
            "buffer 'lse': 2 guard bytes before the start changed, nearest 6 bytes before the start");
}

}  // namespace
}  // namespace mlacheck
