// The scenario table as a parameterised GoogleTest, through the same loader and driver as
// `mlacheck scenarios`: each row must PASS on the correct backend and be caught (FAILED or
// ERRORED) with its own fault. Without a GPU each row reports SKIPPED with the reason.
// MLACHECK_SCENARIOS names another table (e.g. the checkout's, on a machine the build was
// carried to); by default the source tree's upstream.csv.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
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

class UpstreamScenario : public ::testing::TestWithParam<Scenario> {};

TEST_P(UpstreamScenario, PassesCleanAndIsCaughtWithItsFault) {
  const Scenario& s = GetParam();
  Backend* backend = shared_backend().backend.get();
  const CaseResult clean = run_scenario(s, backend, shared_backend().reason);
  if (clean.state == ResultState::skipped) GTEST_SKIP() << clean.reason;
  ASSERT_EQ(clean.state, ResultState::passed) << clean.reason << "\n  repro: " << clean.repro;
  const CaseResult faulted = run_scenario(s, backend, shared_backend().reason, {s.fault});
  EXPECT_TRUE(caught(faulted.state)) << "fault " << to_string(s.fault) << " survived as "
                                     << to_string(faulted.state) << "\n  repro: " << faulted.repro;
}

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
