// The hip backend's path choice (device/hip_backend/decode_path.hpp): explicit paths as requested,
// path=auto by batch and length. Host only: runs in every build.
#include "device/hip_backend/decode_path.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace mlacheck {
namespace {

MlaDecodeProblem problem(std::vector<int> kv_lens, std::vector<int> q_lens, DecodePath path = DecodePath::automatic) {
  MlaDecodeProblem p;
  p.kv_lens = std::move(kv_lens);
  p.q_lens = std::move(q_lens);
  p.path = path;
  return with_defaults(p);
}

constexpr int kCus = 4;

TEST(DecodePath, ExplicitPathsAreTakenAsRequested) {
  for (DecodePath path : {DecodePath::persistent, DecodePath::split_kv}) {
    // Either way round of what auto would pick.
    for (const auto& kv : {std::vector<int>{9, 9, 9, 9, 9}, std::vector<int>{100}}) {
      const DecodePathChoice c = choose_decode_path(problem(kv, std::vector<int>(kv.size(), 1), path), kCus);
      EXPECT_EQ(c.path, path);
      EXPECT_EQ(c.reason, "requested");
    }
  }
}

TEST(DecodePath, AutoTakesPersistentWhenTheBatchFillsTheCus) {
  const DecodePathChoice c = choose_decode_path(problem({50, 50, 50, 50}, {1, 2, 3, 16}), kCus);
  EXPECT_EQ(c.path, DecodePath::persistent);
  EXPECT_NE(c.reason.find("4 requests fill the 4 CUs"), std::string::npos) << c.reason;
}

TEST(DecodePath, AutoTakesPersistentForUnevenLengths) {
  const std::vector<int> q(8, 1);
  // Longest 4000 = 4 x the mean of 1000 exactly: uneven.
  const DecodePathChoice uneven = choose_decode_path(problem({4000, 1, 1, 1, 1, 1, 1, 3994}, q), 16);
  EXPECT_EQ(uneven.path, DecodePath::persistent);
  EXPECT_NE(uneven.reason.find("uneven"), std::string::npos) << uneven.reason;
  // One token more and the mean exceeds 1000: even enough for uniform splits.
  const DecodePathChoice even = choose_decode_path(problem({4000, 1, 1, 1, 1, 1, 1, 3995}, q), 16);
  EXPECT_EQ(even.path, DecodePath::split_kv);
  EXPECT_NE(even.reason.find("similar length"), std::string::npos) << even.reason;
}

TEST(DecodePath, AutoKeepsSplitKvForLongQueriesAndGivenSplits) {
  EXPECT_EQ(choose_decode_path(problem({50, 50, 50, 50, 50}, {1, 1, 17, 1, 1}), kCus).path, DecodePath::split_kv);
  MlaDecodeProblem p = problem({50, 50, 50, 50, 50}, {1, 1, 1, 1, 1});
  p.num_splits = 3;
  const DecodePathChoice c = choose_decode_path(p, kCus);
  EXPECT_EQ(c.path, DecodePath::split_kv);
  EXPECT_NE(c.reason.find("num_splits=3"), std::string::npos) << c.reason;
}

TEST(DecodePath, AutoSingleRequestIsSplitKv) {
  EXPECT_EQ(choose_decode_path(problem({16384}, {1}), kCus).path, DecodePath::split_kv);
}

}  // namespace
}  // namespace mlacheck
