// The scenario table as a parameterised GoogleTest, through the same loader and driver as
// `mlacheck scenarios`: each row must PASS on the correct backend and be caught (FAILED or
// ERRORED) with its own fault, in one of the ways its caught_by column names. Without a GPU each
// row reports SKIPPED with the reason; with one, a row the backend refuses fails.
// Some faults lose the device (a sticky CUDA error, a fatal ROCm memory fault), so the faulted run
// happens in a death-test child that re-executes this binary ("threadsafe" style): a fresh process
// with its own GPU context, whose loss leaves the other tests' device alone.
// MLACHECK_SCENARIOS names another table (e.g. the checkout's, on a machine the build was
// carried to); by default the source tree's upstream.csv.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>

#include "scenarios/kill_matrix.hpp"
#include "scenarios/scenario.hpp"

namespace mlacheck::scenarios {
namespace {

std::string table_path() {
  const char* env = std::getenv("MLACHECK_SCENARIOS");
  return env != nullptr && *env != '\0' ? env : MLACHECK_SCENARIO_DIR "/upstream.csv";
}

// Loaded once, before the tests are listed; a table that does not load leaves the list empty and
// fails TableLoads with the loader's message.
struct Table {
  std::vector<Scenario> scenarios;
  std::string error;
};

const Table& table() {
  static const Table t = [] {
    Table out;
    try {
      out.scenarios = load_scenarios(table_path());
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    return out;
  }();
  return t;
}

BackendOrReason& shared_backend() {
  static BackendOrReason backend = make_hip_backend(0);
  return backend;
}

TEST(ScenarioTable, TableLoads) { EXPECT_EQ(table().error, "") << table_path(); }

// The death-test child's body: the scenario with its fault, exit status 0 when caught in one of
// the ways the scenario's caught_by names.
[[noreturn]] void exit_caught(const Scenario& s) {
  const CaseResult row = run_scenario(s, shared_backend().backend.get(), shared_backend().reason, {s.fault});
  const HowCaught how = how_caught(row);
  const bool as_designed =
      std::any_of(s.caught_by.begin(), s.caught_by.end(), [&](CatchKind k) { return how.has(k); });
  std::fprintf(stderr, "fault %s: %s, caught by %s (designed: %s)\n", std::string(to_string(s.fault)).c_str(),
               std::string(to_string(row.state)).c_str(), how.detail.c_str(), join_catch_kinds(s.caught_by).c_str());
  std::_Exit(caught(row.state) && as_designed ? 0 : 1);
}

class UpstreamScenario : public ::testing::TestWithParam<Scenario> {};

TEST_P(UpstreamScenario, PassesCleanAndIsCaughtWithItsFault) {
  const Scenario& s = GetParam();
  // Without a GPU nothing runs; with one, a scenario the backend refuses is a failure, never a skip.
  if (!shared_backend().backend) GTEST_SKIP() << shared_backend().reason;
  const CaseResult clean = run_scenario(s, shared_backend().backend.get(), shared_backend().reason);
  ASSERT_EQ(clean.state, ResultState::passed) << clean.reason << "\n  repro: " << clean.repro;
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exit_caught(s), ::testing::ExitedWithCode(0), "fault .*: (FAILED|ERRORED), caught by")
      << "the fault survived or was caught other than as designed (" << join_catch_kinds(s.caught_by)
      << ")\n  repro: " << clean.repro;
}

}  // namespace

void PrintTo(const Scenario& s, std::ostream* os) { *os << s.id << " (" << s.upstream << ", " << s.reference << ")"; }

namespace {

std::string test_name(const std::string& id) {
  std::string out;
  for (char c : id) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

INSTANTIATE_TEST_SUITE_P(Upstream, UpstreamScenario, ::testing::ValuesIn(table().scenarios),
                         [](const auto& param_info) { return test_name(param_info.param.id); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(UpstreamScenario);

}  // namespace
}  // namespace mlacheck::scenarios
