// The progress line of long commands: its format, the rate and ETA arithmetic on a fake clock, a
// line rewritten in place on a terminal and plain lines at an interval elsewhere.
#include "cli/progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace mlacheck::cli {
namespace {

// What a Progress wrote to a temporary file.
std::string contents(std::FILE* f) {
  std::string out;
  std::rewind(f);
  for (int c; (c = std::fgetc(f)) != EOF;) out.push_back(static_cast<char>(c));
  return out;
}

TEST(ProgressLine, GivesDoneFailedRateAndTimeLeft) {
  // 30 of 200 cases in 10 s: 3 cases/s, 170 left take 56.7 s.
  EXPECT_EQ(progress_line(30, 200, 2, 10.0, false), "[30/200] 2 failed, 3.0 cases/s, ETA 57 s");
  EXPECT_EQ(progress_line(200, 200, 2, 64.4, true), "[200/200] 2 failed, 3.1 cases/s, took 64 s");
}

TEST(ProgressLine, KnowsNothingBeforeTimePassesOrACaseEnds) {
  EXPECT_EQ(progress_line(0, 50, 0, 0.0, false), "[0/50] 0 failed, 0.0 cases/s, ETA 0 s");
  EXPECT_EQ(progress_line(0, 50, 0, 4.0, false), "[0/50] 0 failed, 0.0 cases/s, ETA 0 s");
  // More done than announced (a total that was an estimate) never goes negative.
  EXPECT_EQ(progress_line(7, 5, 1, 1.0, false), "[7/5] 1 failed, 7.0 cases/s, ETA 0 s");
}

TEST(Progress, OffATerminalPrintsPlainLinesAtTheInterval) {
  double now = 100.0;
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  Progress progress(4, f, /*interactive=*/false, /*quiet_interval_s=*/30.0, [&] { return now; });
  now = 110.0;
  progress.case_done(false);  // 10 s since the start: too soon for a line
  now = 131.0;
  progress.case_done(true);  // 31 s: a line
  now = 140.0;
  progress.case_done(false);  // 9 s since the last line
  now = 150.0;
  progress.case_done(false);
  progress.finish();
  EXPECT_EQ(contents(f),
            "[2/4] 1 failed, 0.1 cases/s, ETA 31 s\n"
            "[4/4] 1 failed, 0.1 cases/s, took 50 s\n");
  std::fclose(f);
}

TEST(Progress, OnATerminalRewritesOneLineInPlace) {
  double now = 0.0;
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  Progress progress(2, f, /*interactive=*/true, 30.0, [&] { return now; });
  now = 2.0;
  progress.case_done(false);
  now = 4.0;
  progress.case_done(false);
  progress.finish();
  EXPECT_EQ(contents(f),
            "\r[1/2] 0 failed, 0.5 cases/s, ETA 2 s\033[K"
            "\r[2/2] 0 failed, 0.5 cases/s, ETA 0 s\033[K"
            "\r[2/2] 0 failed, 0.5 cases/s, took 4 s\n");
  std::fclose(f);
}

TEST(Progress, ABoundedTotalShrinksAndFailuresOfCountedCasesAdd) {
  // mutate: 2 hunts of up to 10 cases; the first is caught at its 3rd case, whose clean run fails.
  double now = 0.0;
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  Progress progress(20, f, /*interactive=*/false, 30.0, [&] { return now; });
  for (int i = 0; i < 3; ++i) progress.case_done(false);
  progress.add_failure();
  progress.set_total(progress.done() + 10);
  now = 40.0;
  progress.case_done(false);  // 4 cases in 40 s, 9 left of the 13 the hunts can still run
  now = 50.0;
  progress.finish();
  EXPECT_EQ(contents(f),
            "[4/13] 1 failed, 0.1 cases/s, ETA 90 s\n"
            "[4/13] 1 failed, 0.1 cases/s, took 50 s\n");
  std::fclose(f);
}

}  // namespace
}  // namespace mlacheck::cli
