// run_forked_pool without a GPU: every job's output comes back to its index, a child that dies or
// hangs costs its own job only, and one child's end does not wait for a sibling's.
#include "cli/forked_pool.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <string>
#include <vector>

namespace mlacheck::cli {
namespace {

TEST(ForkedPool, EveryJobReportsToItsIndex) {
  std::vector<ForkedJob> jobs;
  for (int i = 0; i < 7; ++i)
    jobs.push_back({[i] { return "job " + std::to_string(i) + std::string(100000, 'x'); }, 60.0});
  std::vector<int> seen(jobs.size(), 0);
  run_forked_pool(jobs, 3, [&](std::size_t k, ChildOutcome out) {
    ++seen[k];
    EXPECT_TRUE(out.reported) << out.ended;
    EXPECT_EQ(out.output, "job " + std::to_string(k) + std::string(100000, 'x'));
  });
  EXPECT_EQ(seen, std::vector<int>(jobs.size(), 1));
}

TEST(ForkedPool, ACrashOrAHangCostsItsOwnJob) {
  const std::vector<ForkedJob> jobs = {
      {[]() -> std::string {
         ::sleep(60);
         return "late";
       },
       2.0},
      {[]() -> std::string {
         std::raise(SIGSEGV);
         return "never";
       },
       60.0},
      {[] { return std::string("fine"); }, 60.0},
  };
  std::vector<std::size_t> order;
  std::vector<ChildOutcome> outcomes(jobs.size());
  run_forked_pool(jobs, 3, [&](std::size_t k, ChildOutcome out) {
    order.push_back(k);
    outcomes[k] = std::move(out);
  });
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order.back(), 0u) << "the hanging job ends last, by its watchdog; the others do not wait for it";
  EXPECT_TRUE(outcomes[0].timed_out);
  EXPECT_FALSE(outcomes[0].reported);
  EXPECT_EQ(outcomes[0].ended, "after 2 s");
  EXPECT_FALSE(outcomes[1].reported);
  EXPECT_NE(outcomes[1].ended.find("signal"), std::string::npos) << outcomes[1].ended;
  EXPECT_TRUE(outcomes[2].reported);
  EXPECT_EQ(outcomes[2].output, "fine");
}

}  // namespace
}  // namespace mlacheck::cli
