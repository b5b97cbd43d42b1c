// Warp and block reductions against a host computation that uses the device's real warp width.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "device/platform/device_info.hpp"
#include "device/tests/platform_test_kernels.hpp"
#include "device/tests/requires_device.hpp"

namespace mlacheck {
namespace {

struct Expected {
  float sum = 0.0f;
  float max = -std::numeric_limits<float>::infinity();
};

Expected reduce_ranks(int first, int count) {
  Expected expected;
  for (int rank = first; rank < first + count; ++rank) {
    expected.sum += test::value_of(rank);
    expected.max = std::max(expected.max, test::value_of(rank));
  }
  return expected;
}

class WarpReduce : public RequiresDevice {
 protected:
  void SetUp() override {
    RequiresDevice::SetUp();
    if (IsSkipped()) return;
    warp_ = device_info(0).warp_size;
    RecordProperty("warp_size", std::to_string(warp_));
    ASSERT_GT(warp_, 0);
  }
  int warp_ = 0;
};

TEST_F(WarpReduce, EveryLaneGetsItsWarpsSumAndMax) {
  constexpr int kGroup = 8;
  const int threads = 4 * warp_;
  const std::vector<test::LaneResults> lanes = test::run_warp_reductions(threads, kGroup);
  ASSERT_EQ(lanes.size(), static_cast<std::size_t>(threads));
  for (int rank = 0; rank < threads; ++rank) {
    const Expected warp = reduce_ranks(rank / warp_ * warp_, warp_);
    const Expected group = reduce_ranks(rank / kGroup * kGroup, kGroup);
    EXPECT_EQ(lanes[rank].sum, warp.sum) << "thread " << rank;
    EXPECT_EQ(lanes[rank].max, warp.max) << "thread " << rank;
    EXPECT_EQ(lanes[rank].group_sum, group.sum) << "thread " << rank;
    EXPECT_EQ(lanes[rank].wave, warp_) << "thread " << rank;
  }
}

// 2-D blocks of 1, 3, 6 and the most warps a block holds: the last warp then reduces slots
// that are partly identity padding, and thread_rank must linearise y.
TEST_F(WarpReduce, BlockReductionsReachEveryThread) {
  for (const int warps : {1, 3, 6, 1024 / warp_}) {
    const std::vector<float> results = test::run_block_reductions(warp_, warps);
    const Expected block = reduce_ranks(0, warp_ * warps);
    for (int rank = 0; rank < warp_ * warps; ++rank) {
      EXPECT_EQ(results[2 * rank], block.sum) << warps << " warps, thread " << rank;
      EXPECT_EQ(results[2 * rank + 1], block.max) << warps << " warps, thread " << rank;
    }
  }
}

// With only negative values a 0 identity in the padding slots would win; -inf must not.
TEST_F(WarpReduce, BlockMaxOfNegativesIgnoresPaddingSlots) {
  for (const float v : test::run_block_max_of_negatives(3 * warp_)) EXPECT_EQ(v, -1.0f);
}

}  // namespace
}  // namespace mlacheck
