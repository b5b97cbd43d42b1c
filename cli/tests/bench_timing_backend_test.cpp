// `mlacheck bench`'s timing through the Backend interface, with a stand-in backend and without a
// GPU: each shape the harness's driver checks is then timed on the same inputs (Backend's default
// time_decode: run() on a steady clock), a shape the backend refuses is never timed, and a timing
// that breaks a guard is an error when its shape's row is taken.
#include "cli/bench_timing_backend.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "run/case_prefetch.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck::cli {
namespace {

// Counts its runs and the inputs they got; refuses the problem named "refused"; from run number
// `break_guard_from` on, reports a broken guard.
class StandIn final : public Backend {
 public:
  std::string name() const override { return "stand-in"; }
  std::string device_name() const override { return "Stand-in"; }
  std::optional<std::string> supports(const MlaDecodeProblem& p) const override {
    if (p.name == "refused") return "the stand-in refuses it";
    return std::nullopt;
  }
  std::optional<std::string> supports(const KvGatherProblem&) const override { return "mla_decode only"; }
  MlaDecodeRun run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet&) override {
    inputs.push_back(p.name + " q=" + std::to_string(in.q.size()));
    MlaDecodeRun run;
    if (static_cast<int>(inputs.size()) >= break_guard_from) run.diag.broken_canaries.push_back({"o_padded", "after"});
    return run;
  }
  KvGatherRun run(const KvGatherProblem&, const KvGatherInputs&, const FaultSet&) override {
    throw std::invalid_argument("mla_decode only");
  }
  std::vector<std::string> inputs;
  int break_guard_from = 1 << 30;
};

std::vector<CaseProblem> shapes() {
  return {with_defaults(test_problem("a", 16, {{17}, {1}})), with_defaults(test_problem("refused", 16, {{17}, {1}}))};
}

TEST(BenchTiming, EachCheckedShapeIsTimedOnItsOwnInputsAndARefusedOneIsNot) {
  StandIn backend;
  BenchTimingBackend timing(backend, 2, 3);
  std::vector<std::string> timed, not_timed;
  run_cases(shapes(), &timing, "", {}, PrefetchOptions{1}, [&](std::size_t, CaseResult row) {
    const std::optional<DecodeTiming> t = timing.take_timing(row.id);
    if (!t) {
      not_timed.push_back(row.id);
      EXPECT_EQ(row.state, ResultState::skipped);
      return;
    }
    timed.push_back(row.id);
    EXPECT_EQ(t->path, "stand-in");
    EXPECT_EQ(t->us.size(), 3u);
    EXPECT_GT(t->median_us, 0.0);
    EXPECT_FALSE(timing.take_timing(row.id)) << "a timing is taken once";
  });
  EXPECT_EQ(timed, std::vector<std::string>{"a"});
  EXPECT_EQ(not_timed, std::vector<std::string>{"refused"});
  // The checked run, then 2 warm-up and 3 timed runs, all on the one preparation's inputs.
  ASSERT_EQ(backend.inputs.size(), 6u);
  for (const std::string& in : backend.inputs) EXPECT_EQ(in, backend.inputs.front());
}

TEST(BenchTiming, ATimingThatBreaksAGuardIsAnErrorWhenItsShapeIsTaken) {
  StandIn backend;
  backend.break_guard_from = 2;  // the checked run is clean, the first timed one is not
  BenchTimingBackend timing(backend, 0, 1);
  const MlaDecodeProblem a = std::get<MlaDecodeProblem>(shapes().front());
  timing.run(a, make_inputs(a), {});
  try {
    timing.take_timing("a");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("overwrote the guard of o_padded"), std::string::npos) << e.what();
  }
  EXPECT_THROW(backend.time_decode(a, make_inputs(a), 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace mlacheck::cli
