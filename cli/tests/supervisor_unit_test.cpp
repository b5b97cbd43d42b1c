// Pieces of the supervisor that need no process: how a worker's end is described, and the row a
// lost case gets.
#include <gtest/gtest.h>

#include <csignal>

#include "plan/run_plan.hpp"
#include "cli/supervisor.hpp"

namespace mlacheck::cli {
namespace {

TEST(Supervisor, DescribesSignalsAndExitStatuses) {
  // waitpid encodings (Linux): a signal in the low 7 bits; an exit status in bits 8-15.
  EXPECT_NE(describe_exit(SIGSEGV).find("signal 11"), std::string::npos);
  EXPECT_EQ(describe_exit(3 << 8), "exit status 3");
}

TEST(Supervisor, LostCaseIsErroredWithItsRepro) {
  const RunCase c{"k", RunCase::Kind::device, "kv_gather:name=k", 5.0};
  const CaseResult row = lost_case_row(c, "timed out");
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_EQ(row.op, "kv_gather");
  EXPECT_EQ(row.repro, c.repro);
  EXPECT_EQ(row.reason, "timed out");
}

TEST(RunPlan, WatchdogLimitGrowsWithTheWork) {
  const double small = case_timeout_s("mla_decode:heads=16;kv=64", 60.0);
  const double large = case_timeout_s("mla_decode:heads=128;kv=16384*8;q=4*8", 60.0);
  EXPECT_GE(small, 60.0);
  EXPECT_GT(large, small + 10.0);
  EXPECT_EQ(case_timeout_s("kv_gather:kv=5", 60.0), 60.0);
}

TEST(RunPlan, DefaultPlanHasUniqueIdsAndEveryKind) {
  RunPlanOptions o;
  o.property_cases = 16;
  const auto plan = build_run_plan(o);
  bool oracle = false, mla = false, gather = false;
  for (const RunCase& c : plan) {
    oracle |= c.kind == RunCase::Kind::oracle_self_check;
    mla |= c.kind == RunCase::Kind::device && c.repro.rfind("mla_decode:", 0) == 0;
    gather |= c.repro.rfind("kv_gather:", 0) == 0;
    EXPECT_GT(c.timeout_s, 0.0) << c.id;
  }
  EXPECT_TRUE(oracle && mla && gather);
  o.case_repro = "mla_decode:name=one;heads=16";
  EXPECT_EQ(build_run_plan(o).size(), 1u);
  o.case_repro = "mla_decode:heads=sixteen";
  EXPECT_THROW(build_run_plan(o), std::invalid_argument);
}

}  // namespace
}  // namespace mlacheck::cli
