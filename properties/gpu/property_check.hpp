#pragma once
// Runs a rapidcheck property as the current GoogleTest test. Used instead of RC_GTEST_PROP so
// that a test can report SKIPPED (no GPU, no persistent path) before any case is generated.
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <rapidcheck.h>

namespace mlacheck {

// `gen` drawn from this property's own random stream. rapidcheck starts every property from the
// run's seed, so properties drawing from one generator would all check the same cases; each
// throwaway pick before the real one moves it onto another stream. Give each property its own
// `stream` number.
template <class T>
rc::Gen<T> on_stream(rc::Gen<T> gen, int stream) {
  return rc::gen::exec([gen, stream] {
    for (int i = 0; i < stream; ++i) *rc::gen::just(0);
    return *gen;
  });
}

// "Suite.Name" of the running test: the property's name in the coverage registry.
inline std::string current_property() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

// The property's id is "Suite/Name", as RC_GTEST_PROP's, so a failure's
// RC_PARAMS="reproduce=..." line replays it the same way. rapidcheck prints the counterexample
// (problems print as repro strings) and, at exit, that line.
// Returns whether the property held.
template <class Property>
bool check_property(Property&& property) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string id = std::string(info->test_suite_name()) + "/" + info->name();
  const bool held = rc::check(id, std::forward<Property>(property));
  EXPECT_TRUE(held) << id << " found a counterexample (above)";
  return held;
}

}  // namespace mlacheck
