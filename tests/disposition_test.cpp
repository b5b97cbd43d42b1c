// core/disposition.hpp: every kind's text round trip, and the catch kinds read from typed fields.
#include "core/disposition.hpp"

#include <gtest/gtest.h>

namespace mlacheck {
namespace {

template <class Enum>
void expect_round_trip(Enum last, std::optional<Enum> (*parse)(std::string_view)) {
  for (unsigned i = 0; i <= static_cast<unsigned>(last); ++i) {
    const Enum v = static_cast<Enum>(i);
    const std::string_view text = to_string(v);
    EXPECT_NE(text, "?") << i;
    EXPECT_EQ(parse(text), v) << text;
  }
}

TEST(Disposition, EveryKindRoundTripsThroughItsText) {
  expect_round_trip(SkipReason::not_checked_by_policy, &parse_skip_reason);
  expect_round_trip(ErrorKind::backend_not_started, &parse_error_kind);
  expect_round_trip(FailKind::refused_curated, &parse_fail_kind);
  expect_round_trip(CatchKind::crash, &parse_catch_kind);
  EXPECT_EQ(to_string(SkipReason::none), "");
  EXPECT_EQ(to_string(SkipReason::not_enough_memory), "not_enough_memory");
  EXPECT_EQ(to_string(ErrorKind::timed_out), "timed_out");
  EXPECT_EQ(to_string(FailKind::refused_curated), "refused_curated");
  EXPECT_FALSE(parse_error_kind("crash"));
  EXPECT_FALSE(parse_skip_reason("Unsupported"));
}

TEST(Disposition, CatchKindSetsRoundTrip) {
  for (unsigned bits = 0; bits < 16; ++bits) {
    CatchKinds set;
    for (unsigned k = 0; k < 4; ++k) {
      if ((bits >> k) & 1u) set.add(static_cast<CatchKind>(k));
    }
    EXPECT_EQ(parse_caught_by(to_string(set)), set) << to_string(set);
  }
  CatchKinds two;
  two.add(CatchKind::guard);
  two.add(CatchKind::comparison);
  EXPECT_EQ(to_string(two), "comparison|guard");
  EXPECT_FALSE(parse_caught_by("comparison|"));
  EXPECT_FALSE(parse_caught_by("luck"));
}

TEST(Disposition, CatchKindsComeFromTheTypedFields) {
  EXPECT_EQ(to_string(catch_kinds(ResultState::errored, ErrorKind::crashed, FailKind::none, false, false)), "crash");
  EXPECT_EQ(to_string(catch_kinds(ResultState::errored, ErrorKind::device_lost, FailKind::none, false, false)), "crash");
  EXPECT_EQ(to_string(catch_kinds(ResultState::errored, ErrorKind::timed_out, FailKind::none, false, false)), "crash");
  EXPECT_EQ(to_string(catch_kinds(ResultState::errored, ErrorKind::backend_exception, FailKind::none, false, false)),
            "refusal");
  EXPECT_TRUE(catch_kinds(ResultState::errored, ErrorKind::unknown, FailKind::none, true, true).empty());
  EXPECT_EQ(to_string(catch_kinds(ResultState::failed, ErrorKind::none, FailKind::wrong_output, true, true)),
            "comparison|guard");
  EXPECT_EQ(to_string(catch_kinds(ResultState::failed, ErrorKind::none, FailKind::refused_curated, false, false)),
            "refusal");
  EXPECT_TRUE(catch_kinds(ResultState::passed, ErrorKind::none, FailKind::none, false, false).empty());
  EXPECT_TRUE(catch_kinds(ResultState::known_bug, ErrorKind::crashed, FailKind::none, false, false).empty());
}

}  // namespace
}  // namespace mlacheck
