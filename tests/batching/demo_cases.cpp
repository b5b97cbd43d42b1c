// Cases for tests/batching/batching_test.cpp: each does what its name says, the crash and the hang
// only when asked (MLACHECK_DEMO_CRASH, MLACHECK_DEMO_HANG), so a batch can be made to lose them.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace {

// A global tear-down that fails (MLACHECK_DEMO_TEARDOWN_FAIL) or aborts (MLACHECK_DEMO_TEARDOWN_ABORT)
// on request: failures that belong to no case.
class DemoEnvironment : public testing::Environment {
 public:
  void TearDown() override {
    if (std::getenv("MLACHECK_DEMO_TEARDOWN_FAIL")) ADD_FAILURE() << "the demo tear-down failed on purpose";
    if (std::getenv("MLACHECK_DEMO_TEARDOWN_ABORT")) std::abort();
  }
};
testing::Environment* const kDemoEnvironment = testing::AddGlobalTestEnvironment(new DemoEnvironment);

TEST(Demo, Passes) { EXPECT_EQ(1 + 1, 2); }

TEST(Demo, Fails) { EXPECT_EQ(1 + 1, 3) << "arithmetic is broken on purpose"; }

TEST(Demo, Skips) { GTEST_SKIP() << "no such device here"; }

TEST(Demo, CrashesWhenAsked) {
  if (std::getenv("MLACHECK_DEMO_CRASH")) std::abort();
}

TEST(Demo, HangsWhenAsked) {
  if (std::getenv("MLACHECK_DEMO_HANG")) std::this_thread::sleep_for(std::chrono::hours(1));
}

TEST(Demo, RunsAfterTheOthers) { SUCCEED(); }

class Sized : public testing::TestWithParam<int> {};
TEST_P(Sized, IsPositive) { EXPECT_GT(GetParam(), 0); }
INSTANTIATE_TEST_SUITE_P(Sizes, Sized, testing::Values(4, 16), [](const testing::TestParamInfo<int>& param_info) {
  return "size_" + std::to_string(param_info.param);
});

}  // namespace
