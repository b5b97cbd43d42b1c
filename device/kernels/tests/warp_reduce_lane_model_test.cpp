// The kernels' warp and block reductions (device/platform/lane_reductions.hpp, what
// warp_reduce.hpp runs on the GPU) on host models of 32- and 64-lane warps: every thread must
// receive its warp's, group's and block's sum and max. The GPU twin is
// device/tests/warp_reduce_test.cpp, which can only see the width of the GPU it runs on; here both
// widths run on every machine, and a reduction that assumes 32 lanes on a wave64 must fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "device/kernels/tests/host_lanes.hpp"
#include "device/platform/lane_reductions.hpp"

namespace mlacheck::test {
namespace {

// Distinct small integers (sums exact in fp32), negative and positive, not ordered by rank.
float value_of(int rank) { return static_cast<float>((rank * 37) % 101 - 50); }

struct Expected {
  float sum = 0.0f;
  float max = -std::numeric_limits<float>::infinity();
};
Expected reduce_ranks(int first, int count) {
  Expected e;
  for (int rank = first; rank < first + count; ++rank) {
    e.sum += value_of(rank);
    e.max = std::max(e.max, value_of(rank));
  }
  return e;
}

struct ThreadResult {
  float warp_sum = 0, warp_max = 0, group_sum = 0;
};

// Runs the warp reductions on `warps` warps of `width` lanes. `reduce_width` is the warp width the
// reduction is told (the real one unless a test breaks it on purpose).
std::vector<ThreadResult> run_warp_reductions(int width, int warps, int group, int reduce_width) {
  HostBlock block(width, warps);
  std::vector<ThreadResult> results(static_cast<std::size_t>(width * warps));
  block.run([&](const HostBlock::Lanes& lanes) {
    const float v = value_of(lanes.rank());
    ThreadResult& r = results[static_cast<std::size_t>(lanes.rank())];
    r.warp_sum = gpu::warp_reduce_on(lanes, v, gpu::Sum<float>{}, reduce_width);
    r.warp_max = gpu::warp_reduce_on(lanes, v, gpu::Max<float>{}, reduce_width);
    r.group_sum = gpu::warp_reduce_on(lanes, v, gpu::Sum<float>{}, group);
  });
  EXPECT_EQ(block.partner_outside_warp(), 0);
  return results;
}

// Threads whose warp sum, warp max or group sum differ from the host's.
int warp_mismatches(int width, int group, const std::vector<ThreadResult>& results) {
  int count = 0;
  for (int rank = 0; rank < static_cast<int>(results.size()); ++rank) {
    const Expected warp = reduce_ranks(rank / width * width, width);
    const Expected in_group = reduce_ranks(rank / group * group, group);
    const ThreadResult& r = results[static_cast<std::size_t>(rank)];
    if (r.warp_sum != warp.sum || r.warp_max != warp.max || r.group_sum != in_group.sum) ++count;
  }
  return count;
}

class LaneModelWidth : public ::testing::TestWithParam<int> {};

TEST_P(LaneModelWidth, EveryLaneGetsItsWarpsAndGroupsSumAndMax) {
  const int width = GetParam();
  for (const int group : {2, 8, width}) {
    EXPECT_EQ(warp_mismatches(width, group, run_warp_reductions(width, 4, group, width)), 0)
        << "width " << width << ", group " << group;
  }
}

// 1, 3, 6 and the most warps a 1024-thread block holds: the last warp then reduces scratch slots
// that are partly identity padding. Only negative values for max, so a 0 identity would win.
TEST_P(LaneModelWidth, BlockReductionsReachEveryThread) {
  const int width = GetParam();
  for (const int warps : {1, 3, 6, 1024 / width}) {
    ASSERT_LE(warps, gpu::kBlockReduceSlots);
    HostBlock block(width, warps);
    std::vector<float> sums(static_cast<std::size_t>(width * warps)), maxes(sums.size());
    float sum_scratch[gpu::kBlockReduceSlots], max_scratch[gpu::kBlockReduceSlots];
    block.run([&](const HostBlock::Lanes& lanes) {
      const int rank = lanes.rank();
      sums[static_cast<std::size_t>(rank)] =
          gpu::block_reduce_on(lanes, value_of(rank), gpu::Sum<float>{}, sum_scratch);
      maxes[static_cast<std::size_t>(rank)] =
          gpu::block_reduce_on(lanes, -1.0f - static_cast<float>(rank), gpu::Max<float>{}, max_scratch);
    });
    const Expected all = reduce_ranks(0, width * warps);
    int wrong = 0;
    for (std::size_t rank = 0; rank < sums.size(); ++rank) {
      if (sums[rank] != all.sum || maxes[rank] != -1.0f) ++wrong;
    }
    EXPECT_EQ(wrong, 0) << "width " << width << ", " << warps << " warps";
    EXPECT_EQ(block.partner_outside_warp(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(WarpWidths, LaneModelWidth, ::testing::Values(32, 64),
                         [](const ::testing::TestParamInfo<int>& width) {
                           return "wave" + std::to_string(width.param);
                         });

// A reduction that assumes 32 lanes, run on a wave64: half of each warp is never folded in. The
// comparison must notice, or the tests above prove nothing about warp widths.
TEST(LaneModel, AReductionAssuming32LanesFailsOnWave64) {
  EXPECT_GT(warp_mismatches(64, 8, run_warp_reductions(64, 2, 8, 32)), 0);
}

// The same assumption inside the block reduction: Lanes that report 32 lanes on 64-lane warps.
struct Claims32Lanes {
  const HostBlock::Lanes& real;
  int width() const { return 32; }
  int lane() const { return real.lane(); }
  int warp() const { return real.warp(); }
  int warps() const { return real.warps(); }
  template <class T>
  T shuffle_xor(T value, int lane_mask) const {
    return real.shuffle_xor(value, lane_mask);
  }
  void sync() const { real.sync(); }
};

TEST(LaneModel, ABlockReductionAssuming32LanesFailsOnWave64) {
  constexpr int kWarps = 4;
  HostBlock block(64, kWarps);
  std::vector<float> sums(64 * kWarps);
  float scratch[gpu::kBlockReduceSlots];
  block.run([&](const HostBlock::Lanes& lanes) {
    sums[static_cast<std::size_t>(lanes.rank())] =
        gpu::block_reduce_on(Claims32Lanes{lanes}, value_of(lanes.rank()), gpu::Sum<float>{}, scratch);
  });
  const float expected = reduce_ranks(0, 64 * kWarps).sum;
  EXPECT_TRUE(std::any_of(sums.begin(), sums.end(), [&](float s) { return s != expected; }));
}

}  // namespace
}  // namespace mlacheck::test
