// The shrinking loop (harness/case_shrink.hpp) with stand-in judges: what it keeps, where it ends,
// its bounds, its determinism, and that it never reports a case that does not fail.
#include "harness/case_shrink.hpp"

#include <gtest/gtest.h>

#include <map>

#include "core/mla_sequence.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem large_case() {
  const std::vector<int> kv_lens{5521, 17, 300, 64, 1, 2048, 900, 33, 4000, 12, 5, 77, 1000, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<int> q_lens(kv_lens.size(), 1);
  q_lens[0] = 4;
  MlaDecodeProblem p = on_tp_rank(test_problem("large", 128, {kv_lens, q_lens, 64}), 8, 2);
  p.o_dtype = DType::f32;
  p.profile = FillProfile::sink;
  return with_defaults(p);
}

CaseResult row_of(const MlaDecodeProblem& p, ResultState state, std::string reason = "") {
  CaseResult row;
  row.id = p.name;
  row.repro = to_repro(p);
  row.state = state;
  row.reason = std::move(reason);
  return row;
}

// O out of its tolerance in values: what a wrong kernel's row holds.
CaseResult failed_on_values(const MlaDecodeProblem& p) {
  CaseResult row = row_of(p, ResultState::failed, "O: values");
  ComparedTensor o;
  o.name = "O";
  o.stats.total = 16;
  o.stats.mismatches = 3;
  o.tol.rms = 1e-3;
  o.stats.rms_rel_err = 0.5;
  row.tensors.push_back(o);
  return row;
}

// A kernel like examples/wrong_plugin's: wrong whenever the rope channels matter.
CaseResult rope_ignored(const MlaDecodeProblem& p) {
  return p.rope_dim > 0 ? failed_on_values(p) : row_of(p, ResultState::passed);
}

TEST(FailureClass, NamesTheFirstFailingTensorAndItsKind) {
  const MlaDecodeProblem p = with_defaults({});
  EXPECT_EQ(failure_class(row_of(p, ResultState::passed)), "");
  EXPECT_EQ(failure_class(row_of(p, ResultState::skipped, "no")), "");
  EXPECT_EQ(failure_class(failed_on_values(p)), "FAILED O values");
  CaseResult unwritten = failed_on_values(p);
  unwritten.tensors.front().stats.unwritten = 2;
  EXPECT_EQ(failure_class(unwritten), "FAILED O never written");
  CaseResult nan = failed_on_values(p);
  nan.tensors.front().stats.nonfinite = nan.tensors.front().stats.nan_written = 1;
  EXPECT_EQ(failure_class(nan), "FAILED O NaN written");
  CaseResult canaries = row_of(p, ResultState::failed, "canaries broken: o(after)");
  canaries.canaries = "broken: o(after)";
  EXPECT_EQ(failure_class(canaries), "FAILED canaries");
  EXPECT_EQ(failure_class(row_of(p, ResultState::errored, "index 5521 out of range (at k.py:40)")),
            failure_class(row_of(p, ResultState::errored, "index 3 out of range (at k.py:40)")));
  EXPECT_NE(failure_class(row_of(p, ResultState::errored, "index 3 out of range")),
            failure_class(row_of(p, ResultState::errored, "out of memory")));
  // The same words of another kind fail another way.
  CaseResult crashed = row_of(p, ResultState::errored, "index 3 out of range");
  crashed.error_kind = ErrorKind::crashed;
  EXPECT_NE(failure_class(crashed), failure_class(row_of(p, ResultState::errored, "index 3 out of range")));
}

TEST(CaseShrink, AKernelIgnoringRopeShrinksToOneRequest) {
  int runs = 0;
  const ShrinkResult r = shrink_mla_case(large_case(),
                                         [&](const MlaDecodeProblem& p) {
                                           ++runs;
                                           return rope_ignored(p);
                                         },
                                         {});
  EXPECT_EQ(r.stop, ShrinkStop::minimal);
  EXPECT_EQ(r.failure, "FAILED O values");
  const MlaDecodeProblem s = parse_mla_decode(r.shrunk_repro);
  EXPECT_EQ(batch(s), 1);
  EXPECT_EQ(s.kv_lens, std::vector<int>{1});
  EXPECT_EQ(s.q_lens, std::vector<int>{1});
  EXPECT_EQ(s.total_heads, 1);
  EXPECT_EQ(s.tp, 1);
  EXPECT_EQ(s.kv_lora_rank, 16);
  EXPECT_EQ(s.rope_dim, 1) << "rope 0 passes: the smallest rope that still fails";
  EXPECT_EQ(s.block_size, 1);
  EXPECT_EQ(s.o_dtype, DType::bf16);
  EXPECT_EQ(s.fill, FillMode::exact);
  EXPECT_EQ(s.profile, FillProfile::uniform);
  EXPECT_EQ(failure_class(r.shrunk_row), r.failure);
  EXPECT_EQ(r.original_repro, to_repro(large_case()));
  ASSERT_FALSE(r.steps.empty());
  EXPECT_EQ(r.steps.back().repro, r.shrunk_repro);
  EXPECT_EQ(runs, 1 + r.candidates_run + 1) << "the original, the candidates, the final re-run";
}

TEST(CaseShrink, IsDeterministic) {
  const ShrinkResult a = shrink_mla_case(large_case(), rope_ignored, {});
  const ShrinkResult b = shrink_mla_case(large_case(), rope_ignored, {});
  EXPECT_EQ(a.shrunk_repro, b.shrunk_repro);
  EXPECT_EQ(a.candidates_run, b.candidates_run);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) EXPECT_EQ(a.steps[i].change, b.steps[i].change);
}

TEST(CaseShrink, KeepsOnlyCandidatesThatFailTheSameWay) {
  // Fails on values with 2+ requests, errors with one: the error is another failure, not kept.
  const auto judge = [](const MlaDecodeProblem& p) {
    return batch(p) >= 2 ? failed_on_values(p) : row_of(p, ResultState::errored, "backend raised");
  };
  const ShrinkResult r = shrink_mla_case(large_case(), judge, {});
  EXPECT_EQ(batch(parse_mla_decode(r.shrunk_repro)), 2);
  EXPECT_EQ(failure_class(r.shrunk_row), "FAILED O values");
}

TEST(CaseShrink, APassingCaseIsReportedAndKept) {
  int runs = 0;
  const ShrinkResult r = shrink_mla_case(large_case(),
                                         [&](const MlaDecodeProblem& p) {
                                           ++runs;
                                           return row_of(p, ResultState::passed);
                                         },
                                         {});
  EXPECT_EQ(r.stop, ShrinkStop::not_failing);
  EXPECT_EQ(r.shrunk_repro, r.original_repro);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_EQ(r.failure, "");
  EXPECT_EQ(runs, 1);
}

TEST(CaseShrink, StopsAtMaxSteps) {
  int runs = 0;
  const ShrinkResult r = shrink_mla_case(large_case(),
                                         [&](const MlaDecodeProblem& p) {
                                           ++runs;
                                           return rope_ignored(p);
                                         },
                                         {.max_steps = 3, .max_seconds = 600});
  EXPECT_EQ(r.stop, ShrinkStop::max_steps);
  EXPECT_EQ(r.candidates_run, 3);
  EXPECT_EQ(runs, 1 + 3 + 1);
  EXPECT_EQ(failure_class(r.shrunk_row), r.failure);
}

TEST(CaseShrink, StopsAtMaxSeconds) {
  const ShrinkResult r = shrink_mla_case(large_case(), rope_ignored, {.max_steps = 200, .max_seconds = 0.0});
  EXPECT_EQ(r.stop, ShrinkStop::max_seconds);
  EXPECT_EQ(r.candidates_run, 0);
  EXPECT_EQ(r.shrunk_repro, r.original_repro);
}

// A backend whose failure does not come back on the re-run: the loop steps back to a case that
// fails again, and never reports one that passed its last run.
TEST(CaseShrink, AResultThatPassesItsRerunIsNotReported) {
  std::map<std::string, int> seen;
  const auto flaky = [&](const MlaDecodeProblem& p) {
    const int n = ++seen[to_repro(p)];
    // One-request cases fail only the first time they run.
    if (batch(p) == 1 && n > 1) return row_of(p, ResultState::passed);
    return failed_on_values(p);
  };
  const ShrinkResult r = shrink_mla_case(large_case(), flaky, {});
  EXPECT_GE(r.reruns_not_failing, 1);
  EXPECT_GE(batch(parse_mla_decode(r.shrunk_repro)), 2);
  EXPECT_EQ(failure_class(r.shrunk_row), "FAILED O values");
  if (!r.steps.empty()) {
    EXPECT_EQ(r.steps.back().repro, r.shrunk_repro);
  }
}

TEST(CaseShrink, ASequenceShrinksTowardOneStep) {
  const MlaDecodeProblem p = with_defaults(join_and_leave_sequence());
  // Fails while the sequence has two steps or more: a plan gone stale at replay.
  const ShrinkResult r = shrink_mla_case(
      p, [](const MlaDecodeProblem& c) { return c.steps >= 2 ? failed_on_values(c) : row_of(c, ResultState::passed); },
      {});
  EXPECT_EQ(parse_mla_decode(r.shrunk_repro).steps, 2);
  EXPECT_EQ(batch(parse_mla_decode(r.shrunk_repro)), 1);
}

}  // namespace
}  // namespace mlacheck
