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
  set_skipped(row, SkipReason::not_enough_memory,
              "not enough memory on this machine: needs about 17578 MiB of host memory, 21534 MiB are free");
  std::string buffer = encode_row_frame(7, row) + encode_row_frame(8, sample_row());
  const auto frames = take_row_frames(buffer);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].row.skip_reason, SkipReason::not_enough_memory);
  EXPECT_EQ(frames[0].row.reason, row.reason);
  EXPECT_EQ(frames[1].row.skip_reason, SkipReason::none);
}

// Every kind crosses the frame as the typed field, whatever its reason says.
TEST(RowFrames, EveryKindCrossesTheFrame) {
  std::string buffer;
  std::size_t index = 0;
  for (ErrorKind kind : {ErrorKind::crashed, ErrorKind::timed_out, ErrorKind::device_lost,
                         ErrorKind::backend_exception, ErrorKind::harness_error, ErrorKind::backend_not_started}) {
    CaseResult row = sample_row();
    set_errored(row, kind, "died while running this case: signal 6");  // the same words for every kind
    buffer += encode_row_frame(index++, row);
  }
  CaseResult refused = sample_row();
  refused.state = ResultState::failed;
  refused.fail_kind = FailKind::refused_curated;
  buffer += encode_row_frame(index++, refused);
  const auto frames = take_row_frames(buffer);
  ASSERT_EQ(frames.size(), 7u);
  EXPECT_EQ(frames[0].row.error_kind, ErrorKind::crashed);
  EXPECT_EQ(frames[1].row.error_kind, ErrorKind::timed_out);
  EXPECT_EQ(frames[2].row.error_kind, ErrorKind::device_lost);
  EXPECT_EQ(frames[3].row.error_kind, ErrorKind::backend_exception);
  EXPECT_EQ(frames[4].row.error_kind, ErrorKind::harness_error);
  EXPECT_EQ(frames[5].row.error_kind, ErrorKind::backend_not_started);
  EXPECT_EQ(frames[6].row.fail_kind, FailKind::refused_curated);
}

TEST(RowFrames, GarbageIsRefused) {
  std::string buffer = "hello world\n";
  EXPECT_THROW(take_row_frames(buffer), std::runtime_error);
}

}  // namespace
}  // namespace mlacheck
