// The kill matrix's columns: a backend plugin runs the scenarios clean only (faults are switches
// inside mlacheck's own pipeline), and then only its clean runs are held to account.
#include <gtest/gtest.h>

#include <vector>

#include "scenarios/kill_matrix.hpp"

namespace mlacheck::scenarios {
namespace {

Scenario scenario(const char* id) {
  Scenario s;
  s.id = id;
  s.fault = Fault::tile_width_from_lk;
  MlaDecodeProblem p;
  p.name = id;
  s.problem = with_defaults(p);
  return s;
}

CaseResult row(ResultState state) {
  CaseResult r;
  r.state = state;
  if (state != ResultState::passed) r.reason = "O: 3 of 8 elements outside the bound";
  return r;
}

TEST(KillMatrixColumns, WithoutColumnsOnlyTheCleanRunsRunAndCount) {
  std::vector<FaultSet> runs;
  const ScenarioRunner clean_passes = [&](const Scenario&, const FaultSet& f) {
    runs.push_back(f);
    return row(ResultState::passed);
  };
  const KillMatrix m = run_kill_matrix({scenario("a"), scenario("b")}, clean_passes, {}, {});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs[0].empty() && runs[1].empty());
  EXPECT_TRUE(m.faults.empty());
  EXPECT_TRUE(m.rows[0].with_fault.empty());
  EXPECT_TRUE(kill_matrix_problems(m).empty());

  const ScenarioRunner clean_fails = [](const Scenario&, const FaultSet&) { return row(ResultState::failed); };
  const std::vector<std::string> problems =
      kill_matrix_problems(run_kill_matrix({scenario("a")}, clean_fails, {}, {}));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "a: the clean run is FAILED: O: 3 of 8 elements outside the bound");
}

TEST(KillMatrixColumns, EveryFaultIsAColumnByDefault) {
  std::size_t runs = 0;
  const ScenarioRunner survives = [&](const Scenario&, const FaultSet&) {
    ++runs;
    return row(ResultState::passed);
  };
  const KillMatrix m = run_kill_matrix({scenario("a")}, survives);
  EXPECT_EQ(runs, 1 + std::size(kAllFaults));
  const std::vector<std::string> problems = kill_matrix_problems(m);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "a: its fault tile-width-from-lk survived (PASSED)");
}

}  // namespace
}  // namespace mlacheck::scenarios
