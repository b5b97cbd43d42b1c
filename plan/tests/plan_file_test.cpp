// Plan files and tiers (plan/plan_file.hpp), the property sweep's work budget, and the order a
// sitting runs its cases in.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/op_registry.hpp"
#include "plan/plan_file.hpp"
#include "plan/run_plan.hpp"

namespace mlacheck {
namespace {

struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("mlacheck_plan_file_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

std::string error_of(const std::string& file) {
  try {
    read_plan_file(file);
  } catch (const PlanFileError& e) {
    return e.what();
  }
  return "";
}

TEST(PlanFile, ReadsEverySource) {
  TempDir dir;
  const std::string file = dir.write("my.plan",
                                     "# a comment\n\noracle-self-checks\nscenarios path=s.csv  # trailing\n"
                                     "covering-array strength=2\nproperties seed=7 size=12 budget=5e8\n"
                                     "repro-file path=cases.txt\nrepro-file path=/abs/more.txt\n");
  const RunPlanOptions o = read_plan_file(file);
  EXPECT_TRUE(o.oracle_self_checks);
  EXPECT_FALSE(o.default_sweeps);
  EXPECT_EQ(o.scenarios_file, (dir.path / "s.csv").string());
  EXPECT_EQ(o.factors_file, kDefaultTable);
  EXPECT_EQ(o.coverage_strength, 2);
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(o.property_cases, 12);
  EXPECT_EQ(o.property_case_work_budget, 5e8);
  EXPECT_EQ(o.repro_files, (std::vector<std::string>{(dir.path / "cases.txt").string(), "/abs/more.txt"}));
  // A plan naming nothing runs nothing.
  const RunPlanOptions none = read_plan_file(dir.write("empty.plan", "# nothing\n"));
  EXPECT_FALSE(none.oracle_self_checks || none.default_sweeps);
  EXPECT_EQ(none.property_cases, 0);
  EXPECT_TRUE(none.scenarios_file.empty() && none.factors_file.empty());
}

TEST(PlanFile, AMalformedLineNamesFileAndLine) {
  TempDir dir;
  const auto at = [&](const std::string& text) { return error_of(dir.write("bad.plan", text)); };
  const std::string where = (dir.path / "bad.plan").string();
  EXPECT_EQ(at("scenarios\nsweeps\n").rfind(where + ":2: 'sweeps' is no case source", 0), 0u) << at("scenarios\nsweeps\n");
  EXPECT_EQ(at("properties size=many\n").rfind(where + ":1: size=many is not a number", 0), 0u);
  EXPECT_EQ(at("properties budget=-1\n").rfind(where + ":1: budget=-1", 0), 0u);
  EXPECT_EQ(at("\n\ncovering-array depth=2\n").rfind(where + ":3: 'covering-array' takes no key 'depth'", 0), 0u);
  EXPECT_EQ(at("covering-array strength=12\n").rfind(where + ":1: strength=12 exceeds", 0), 0u);
  EXPECT_EQ(at("scenarios\nscenarios\n").rfind(where + ":2: 'scenarios' appears twice", 0), 0u);
  EXPECT_EQ(at("repro-file\n").rfind(where + ":1: repro-file needs path=FILE", 0), 0u);
  EXPECT_EQ(at("properties size\n").rfind(where + ":1: 'size' is not key=value", 0), 0u);
  EXPECT_FALSE(error_of((dir.path / "missing.plan").string()).empty());
}

TEST(PlanFile, ReproFilesAreCuratedCasesNamedByTheirRepro) {
  TempDir dir;
  dir.write("cases.txt", "# upstream repro\nmla_decode:name=mine;heads=16;kv=64\n\n  kv_gather:name=g;kv=5  \n");
  RunPlanOptions o = read_plan_file(dir.write("r.plan", "repro-file path=cases.txt\n"));
  const std::vector<RunCase> plan = build_run_plan(o);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].id, "mine");
  EXPECT_EQ(plan[1].id, "g");
  EXPECT_EQ(plan[0].origin, CaseOrigin::curated);
  dir.write("cases.txt", "mla_decode:name=ok;heads=16\nmla_decode:heads=sixteen\n");
  try {
    build_run_plan(o);
    FAIL() << "a malformed repro line was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cases.txt:2: "), std::string::npos) << e.what();
  }
}

TEST(Tiers, EachNamedTierIsAPlanFileThatBuilds) {
  for (const char* tier : kTierNames) {
    RunPlanOptions o = read_plan_file(tier_plan_path(tier));
    resolve_plan_tables(o);
    EXPECT_FALSE(o.scenarios_file.empty()) << tier;
    EXPECT_FALSE(o.factors_file.empty()) << tier;  // every tier holds a covering array
    EXPECT_GT(o.property_case_work_budget, 0.0) << tier;
    EXPECT_FALSE(build_run_plan(o).empty()) << tier;
  }
  EXPECT_THROW(tier_plan_path("weekly"), std::invalid_argument);
}

TEST(WorkBudget, NoPropertyCaseExceedsItAndWhatItExcludedIsNoted) {
  RunPlanOptions o;
  o.oracle_self_checks = false;
  o.default_sweeps = false;
  o.property_cases = 200;
  PlanNotes unbounded;
  double most = 0.0;
  for (const RunCase& c : build_run_plan(o, &unbounded)) most = std::max(most, case_work(parse_case(c.repro)));
  EXPECT_TRUE(unbounded.budget_excluded.empty());
  o.property_case_work_budget = most / 20;
  PlanNotes notes;
  const std::vector<RunCase> bounded = build_run_plan(o, &notes);
  for (const RunCase& c : bounded) EXPECT_LE(case_work(parse_case(c.repro)), most / 20) << c.id;
  EXPECT_FALSE(notes.budget_excluded.empty());
  EXPECT_EQ(notes.budget_excluded.front().rfind("sweep-", 0), 0u);
  EXPECT_GT(bounded.size(), 150u);  // redrawn, not dropped, nearly always
}

TEST(CostOrder, SelfChecksFirstThenCostliestFirstStable) {
  std::vector<RunCase> cases = {
      {"small", RunCase::Kind::device, "mla_decode:name=small;heads=16;kv=64", 0.0},
      {"self", RunCase::Kind::oracle_self_check, "mla_decode:name=self;heads=128;kv=4096", 0.0},
      {"big", RunCase::Kind::device, "mla_decode:name=big;heads=128;kv=4096", 0.0},
      {"small2", RunCase::Kind::device, "mla_decode:name=small2;heads=16;kv=64", 0.0},
      {"gather", RunCase::Kind::device, "kv_gather:name=gather;kv=5", 0.0},
  };
  order_costliest_first(cases);
  std::vector<std::string> ids;
  for (const RunCase& c : cases) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"self", "big", "small", "small2", "gather"}));
}

}  // namespace
}  // namespace mlacheck
