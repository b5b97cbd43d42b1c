// The one prefetch loop (run/prefetch_queue.hpp) with plain preparations, no oracle: cases come
// out in list order, never more than `lookahead` are prepared ahead of the taker, what a
// preparation throws reaches the taker at that case, and lookahead 0 prepares on the taker.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "run/prefetch_queue.hpp"

namespace mlacheck {
namespace {

TEST(PrefetchQueue, HandsOutInListOrderWithinTheLookahead) {
  constexpr std::size_t n = 40, lookahead = 3;
  std::atomic<std::size_t> taken{0};
  std::atomic<bool> too_far{false};
  PrefetchQueue<std::size_t> queue(std::vector<double>(n, 1.0), lookahead, 4, [&](std::size_t i, int threads) {
    // Case i may start once case i - lookahead is taken; `taken` counts it a moment after next()
    // returns, hence the one case of slack.
    if (i > taken.load() + lookahead) too_far = true;
    EXPECT_GE(threads, 1);
    return i * 10;
  });
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // let the threads run ahead
    EXPECT_EQ(queue.next(), i * 10);
    taken = i + 1;
    EXPECT_EQ(queue.taken(), i + 1);
  }
  EXPECT_FALSE(too_far) << "a case was prepared more than `lookahead` ahead of the taker";
  EXPECT_THROW(queue.next(), std::out_of_range);
}

TEST(PrefetchQueue, ThrowsAPreparationsErrorAtItsCase) {
  PrefetchQueue<int> queue(std::vector<double>(3, 1.0), 2, 2, [](std::size_t i, int) {
    if (i == 1) throw std::runtime_error("case 1 broke");
    return static_cast<int>(i);
  });
  EXPECT_EQ(queue.next(), 0);
  EXPECT_THROW(
      {
        try {
          queue.next();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "case 1 broke");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_EQ(queue.next(), 2);
}

TEST(PrefetchQueue, LookaheadZeroPreparesOnTheTaker) {
  const auto taker = std::this_thread::get_id();
  PrefetchQueue<bool> queue(std::vector<double>(2, 1.0), 0, 0,
                            [&](std::size_t, int threads) { return std::this_thread::get_id() == taker && threads == 1; });
  EXPECT_TRUE(queue.next());
  EXPECT_TRUE(queue.next());
}

TEST(PrefetchQueue, EndsCleanlyWithCasesNotTaken) {
  std::atomic<int> prepared{0};
  {
    PrefetchQueue<int> queue(std::vector<double>(100, 1.0), 4, 2, [&](std::size_t, int) { return ++prepared; });
    EXPECT_GE(queue.next(), 1);
  }
  EXPECT_LE(prepared.load(), 1 + 4) << "the queue prepared past its lookahead";
}

}  // namespace
}  // namespace mlacheck
