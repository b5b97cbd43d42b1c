// Row frames, the way a row crosses from an isolated case's process to the parent: they survive
// the trip, partial frames wait for the rest, garbage is refused.
#include <gtest/gtest.h>

#include "run/row_frames.hpp"

namespace mlacheck {
namespace {

CaseResult sample_row() {
  CaseResult row;
  row.id = "dsv3.decode.0";
  row.op = "mla_decode";
  row.repro = "mla_decode:name=dsv3.decode.0;heads=128;kv=4096*8";
  row.backend = "hip";
  row.state = ResultState::failed;
  row.reason = "O: 3 of 65536 elements, \"quoted\"\nand a second line";
  Tolerance tol{1e-3, 2e-3, 4e-3, "rule, with a comma"};
  CompareStats stats;
  stats.total = 65536;
  stats.mismatches = 3;
  stats.max_abs_err = 0.125;
  row.tensors = {{"O", stats, tol}};
  row.canaries = "ok";
  row.device_ms = 1.5;
  return row;
}

TEST(RowFrames, RowFramesArriveWholeOrWait) {
  const std::string two = encode_row_frame(3, sample_row()) + encode_row_frame(4, sample_row());
  std::string buffer = two.substr(0, two.size() - 5);  // the second frame cut short
  auto frames = take_row_frames(buffer);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].index, 3u);
  EXPECT_EQ(frames[0].row.reason, sample_row().reason);
  EXPECT_EQ(frames[0].row.state, ResultState::failed);
  ASSERT_EQ(frames[0].row.tensors.size(), 1u);
  EXPECT_EQ(frames[0].row.tensors[0].stats.mismatches, 3u);
  EXPECT_EQ(frames[0].row.tensors[0].tol.rule, "rule, with a comma");
  buffer += two.substr(two.size() - 5);
  frames = take_row_frames(buffer);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].index, 4u);
  EXPECT_TRUE(buffer.empty());
}

TEST(RowFrames, AMemorySkipStaysOneAcrossTheFrame) {
  CaseResult row = sample_row();
  row.state = ResultState::skipped;
  row.reason = "not enough memory on this machine: needs about 17578 MiB of host memory, 21534 MiB are free";
  row.skipped_for_memory = true;
  std::string buffer = encode_row_frame(7, row) + encode_row_frame(8, sample_row());
  const auto frames = take_row_frames(buffer);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_TRUE(frames[0].row.skipped_for_memory);
  EXPECT_EQ(frames[0].row.reason, row.reason);
  EXPECT_FALSE(frames[1].row.skipped_for_memory);
}

TEST(RowFrames, GarbageIsRefused) {
  std::string buffer = "hello world\n";
  EXPECT_THROW(take_row_frames(buffer), std::runtime_error);
}

}  // namespace
}  // namespace mlacheck
