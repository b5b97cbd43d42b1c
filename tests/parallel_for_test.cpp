// core/parallel_for: every index once, on at most the threads asked for, errors rethrown.
#include "core/parallel_for.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <vector>

namespace mlacheck {
namespace {

TEST(ParallelFor, VisitsEveryIndexOnceOnAtMostTheThreadsAsked) {
  for (int threads : {1, 2, 5}) {
    for (int count : {0, 1, 3, 100}) {
      std::vector<std::atomic<int>> visits(static_cast<std::size_t>(count));
      std::atomic<int> highest_worker{0};
      parallel_for(count, threads, [&](int index, int worker) {
        ++visits[static_cast<std::size_t>(index)];
        int seen = highest_worker.load();
        while (worker > seen && !highest_worker.compare_exchange_weak(seen, worker)) {
        }
      });
      for (int i = 0; i < count; ++i) EXPECT_EQ(visits[static_cast<std::size_t>(i)], 1) << i;
      EXPECT_LT(highest_worker.load(), std::max(1, std::min(threads, count)));
    }
  }
}

TEST(ParallelFor, RethrowsABodysError) {
  for (int threads : {1, 3}) {
    EXPECT_THROW(parallel_for(50, threads,
                              [](int index, int) {
                                if (index == 17) throw std::runtime_error("index 17");
                              }),
                 std::runtime_error);
  }
}

}  // namespace
}  // namespace mlacheck
