// The kill matrix's verdict without a GPU: rows made by hand, as the harness would write them.
// How each fault was caught is read from the rows, and the matrix fails a scenario that did not
// run clean (SKIPPED included) or whose fault was caught other than as it is designed to be.
#include <gtest/gtest.h>

#include "harness/lost_case.hpp"
#include "scenarios/catch_kind.hpp"
#include "scenarios/kill_matrix.hpp"

namespace mlacheck::scenarios {
namespace {

CaseResult passed() {
  CaseResult r;
  r.state = ResultState::passed;
  r.canaries = "ok";
  return r;
}

CaseResult errored(ErrorKind kind, std::string reason) {
  CaseResult r;
  set_errored(r, kind, std::move(reason));
  return r;
}

CaseResult failed_on(const std::string& tensor, std::size_t mismatches, std::size_t unwritten, std::string canaries = "ok") {
  CaseResult r;
  r.state = ResultState::failed;
  r.fail_kind = FailKind::wrong_output;
  r.reason = "O: wrong";
  ComparedTensor t;
  t.name = tensor;
  t.stats.total = 1024;
  t.stats.mismatches = mismatches;
  t.stats.unwritten = unwritten;
  t.tol.rms = 1e-2;
  ComparedTensor fine;
  fine.name = "LSE";
  fine.stats.total = 16;
  fine.tol.rms = 1e-2;
  r.tensors = {t, fine};
  r.canaries = std::move(canaries);
  return r;
}

TEST(HowCaught, NamesTheWayAndTheEvidence) {
  HowCaught h = how_caught(failed_on("O", 17, 0));
  EXPECT_EQ(h.kinds, (std::vector<CatchKind>{CatchKind::comparison}));
  EXPECT_EQ(h.detail, "comparison (O)");

  h = how_caught(failed_on("O", 0, 96, "broken: partial_o(after)"));
  EXPECT_EQ(h.kinds, (std::vector<CatchKind>{CatchKind::guard}));
  EXPECT_EQ(h.detail, "guard (canary partial_o(after); 96 O elements unwritten)");

  h = how_caught(failed_on("K", 3, 5));
  EXPECT_TRUE(h.has(CatchKind::comparison) && h.has(CatchKind::guard)) << h.detail;

  h = how_caught(errored(ErrorKind::backend_exception,
                         "persistent launch: the six buffers travel together; reduce_partial_map is missing"));
  EXPECT_EQ(h.kinds, (std::vector<CatchKind>{CatchKind::refusal}));
  EXPECT_NE(h.detail.find("reduce_partial_map is missing"), std::string::npos);

  for (const auto& [kind, reason] :
       {std::pair{ErrorKind::crashed, process_died_reason("the case's process", "signal 6 (Aborted)")},
        std::pair{ErrorKind::timed_out, watchdog_reason(30, "the case's process")},
        std::pair{ErrorKind::device_lost,
                  device_lost_reason("hipErrorIllegalAddress (an illegal memory access was encountered)")}}) {
    h = how_caught(errored(kind, reason));
    EXPECT_EQ(h.kinds, (std::vector<CatchKind>{CatchKind::crash})) << reason;
    EXPECT_NE(h.detail.find(reason), std::string::npos);
  }
  EXPECT_TRUE(how_caught(passed()).kinds.empty());
}

// The kind is the typed field, never the reason: a refusal worded like a crash stays a refusal,
// a crash worded like nothing stays a crash, and an ERRORED row of unknown kind (a report older
// than the error_kind column) claims no way at all.
TEST(HowCaught, ReadsTheTypedKindNeverTheReason) {
  const std::string crash_words = process_died_reason("the case's process", "signal 11 (Segmentation fault)");
  HowCaught h = how_caught(errored(ErrorKind::backend_exception, crash_words));
  EXPECT_EQ(h.kinds, (std::vector<CatchKind>{CatchKind::refusal})) << h.detail;
  h = how_caught(errored(ErrorKind::backend_exception, device_lost_reason("hipErrorIllegalAddress")));
  EXPECT_EQ(h.kinds, (std::vector<CatchKind>{CatchKind::refusal})) << h.detail;
  h = how_caught(errored(ErrorKind::timed_out, "no words of a watchdog here"));
  EXPECT_EQ(h.kinds, (std::vector<CatchKind>{CatchKind::crash})) << h.detail;
  h = how_caught(errored(ErrorKind::unknown, crash_words));
  EXPECT_TRUE(h.kinds.empty()) << h.detail;
  // A curated case the built-in backend refused is caught by refusal, not by a comparison.
  CaseResult refused;
  refused.state = ResultState::failed;
  refused.fail_kind = FailKind::refused_curated;
  refused.reason = "the backend refuses a curated case (only generated cases may be skipped): q_dtype=f32";
  h = how_caught(refused);
  EXPECT_EQ(h.kinds, (std::vector<CatchKind>{CatchKind::refusal})) << h.detail;
}

TEST(CatchKinds, ParseAndJoin) {
  EXPECT_EQ(parse_catch_kinds("guard|crash"), (std::vector<CatchKind>{CatchKind::guard, CatchKind::crash}));
  EXPECT_EQ(join_catch_kinds({CatchKind::comparison, CatchKind::refusal}), "comparison|refusal");
  EXPECT_THROW(parse_catch_kinds("comparison|"), std::invalid_argument);
  EXPECT_THROW(parse_catch_kinds("luck"), std::invalid_argument);
}

// One scenario (intended fault S4's) with `clean` and, under its own fault, `own`; every other
// fault's cell passes.
KillMatrix one_row(CaseResult clean, CaseResult own, std::vector<CatchKind> caught_by) {
  KillMatrix m;
  m.faults.assign(std::begin(kAllFaults), std::end(kAllFaults));
  KillMatrixRow row{"s4", Fault::non_pow2_qlen_rows_collapse, std::move(caught_by), std::move(clean), {}};
  for (Fault f : m.faults) row.with_fault.push_back(f == row.intended ? own : passed());
  m.rows.push_back(std::move(row));
  return m;
}

TEST(KillMatrix, ASkippedCleanRunIsAProblem) {
  CaseResult skipped;
  skipped.state = ResultState::skipped;
  skipped.reason = "q_dtype=f32: split-KV kernels take q in bf16 or f16";
  const auto problems = kill_matrix_problems(one_row(skipped, failed_on("O", 4, 0), {CatchKind::comparison}));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "s4: the clean run is SKIPPED: q_dtype=f32: split-KV kernels take q in bf16 or f16");
}

TEST(KillMatrix, ACleanRunSkippedForMemoryIsUncheckedNotAProblem) {
  CaseResult skipped;
  skipped.state = ResultState::skipped;
  skipped.reason = "not enough memory on this machine: needs about 17578 MiB of device memory, 9000 MiB are free";
  skipped.skip_reason = SkipReason::not_enough_memory;
  const KillMatrix m = one_row(skipped, skipped, {CatchKind::comparison});
  EXPECT_TRUE(kill_matrix_problems(m).empty());
  EXPECT_EQ(kill_matrix_unchecked(m), std::vector<std::string>{"s4: " + skipped.reason});
  // A run where no backend was made is a problem still, and checked rows are not listed as unchecked.
  skipped.skip_reason = SkipReason::no_device;
  EXPECT_EQ(kill_matrix_problems(one_row(skipped, skipped, {CatchKind::comparison})).size(), 1u);
  EXPECT_TRUE(kill_matrix_unchecked(one_row(passed(), failed_on("O", 4, 0), {CatchKind::comparison})).empty());
}

TEST(KillMatrix, AFaultMustBeCaughtTheWayItIsDesignedToBe) {
  EXPECT_TRUE(kill_matrix_problems(one_row(passed(), failed_on("O", 4, 0), {CatchKind::comparison})).empty());
  const auto crashed = kill_matrix_problems(
      one_row(passed(), errored(ErrorKind::crashed, process_died_reason("the case's process", "signal 11 (Segmentation fault)")),
              {CatchKind::comparison}));
  ASSERT_EQ(crashed.size(), 1u);
  EXPECT_EQ(crashed[0],
            "s4: its fault non-pow2-qlen-rows-collapse must be caught by comparison, but was caught by crash (the "
            "case's process died while running this case: signal 11 (Segmentation fault))");
  // Any one of the listed ways will do.
  EXPECT_TRUE(kill_matrix_problems(one_row(passed(), failed_on("O", 0, 8, "broken: o(after)"),
                                           {CatchKind::guard, CatchKind::crash}))
                  .empty());
  const auto survived = kill_matrix_problems(one_row(passed(), passed(), {CatchKind::comparison}));
  ASSERT_EQ(survived.size(), 1u);
  EXPECT_EQ(survived[0], "s4: its fault non-pow2-qlen-rows-collapse survived (PASSED)");
}

}  // namespace
}  // namespace mlacheck::scenarios
