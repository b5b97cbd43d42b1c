// How the cases prepared at once share the host's threads (harness/oracle_share.hpp).
#include "harness/oracle_share.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace mlacheck {
namespace {

// The cases prepared at once share the host's threads by their work: a heavy case among light ones
// gets most of them, the run's last case all of them, copies (no work) one.
TEST(OracleShare, ACaseGetsTheHostsThreadsInProportionToItsWork) {
  const std::vector<double> heavy_first = {8.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  EXPECT_EQ(oracle_threads_for_share(heavy_first, 16), 8);  // ceil(16 * 8 / 16)
  const std::vector<double> light_first = {1.0, 8.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  EXPECT_EQ(oracle_threads_for_share(light_first, 16), 1);
  const std::vector<double> last = {3.0};
  EXPECT_EQ(oracle_threads_for_share(last, 16), 16);
  const std::vector<double> equal = {2.0, 2.0, 2.0, 2.0};
  EXPECT_EQ(oracle_threads_for_share(equal, 16), 4);
  const std::vector<double> copy = {0.0, 5.0};
  EXPECT_EQ(oracle_threads_for_share(copy, 16), 1);
  EXPECT_EQ(oracle_threads_for_share(std::vector<double>{}, 16), 1);
  EXPECT_EQ(oracle_threads_for_share(last, 0), 1);  // unknown host
  // In a queue: the window is the case and the ones after it, cut at the lookahead and at the end.
  const std::vector<double> queue = {1.0, 1.0, 2.0, 6.0};
  const int host = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(oracle_threads_in_queue(queue, 2, 2), oracle_threads_for_share(std::vector<double>{2.0, 6.0}, host));
  EXPECT_EQ(oracle_threads_in_queue(queue, 3, 8), host);  // the last case: all of the host
  EXPECT_EQ(oracle_threads_in_queue(queue, 0, 1), host);  // no case beside it
  EXPECT_EQ(oracle_threads_in_queue(queue, 4, 2), 1);     // past the end: nothing to share
  EXPECT_GE(default_lookahead(), 4u);
  EXPECT_LE(default_lookahead(), 32u);
}

}  // namespace
}  // namespace mlacheck
