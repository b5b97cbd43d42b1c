// Decode sequences through the harness driver (harness/mla_sequence_case.hpp) with stand-in
// backends on the host: the kernel arithmetic model (reference/) computes each step, so a correct
// sequence passes, a session that keeps step 0's lengths fails from step 1 on, and errors and
// refusals name their step. No GPU.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "core/mla_sequence.hpp"
#include "harness/mla_case.hpp"
#include "harness/sequence_row.hpp"
#include "properties/support/mla_test_problems.hpp"
#include "reference/kernel_arithmetic_model.hpp"

namespace mlacheck {
namespace {

MlaDecodeRun model_run(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  MlaDecodeRun run;
  run.out = kernel_arithmetic_model(p, in);
  run.diag.path = "model";
  return run;
}

// One step computed with the lengths of another (a plan built for the sequence's first step).
class StaleLengthsSession final : public MlaSequenceSession {
 public:
  explicit StaleLengthsSession(const MlaDecodeProblem& seq) : seq_(seq) {}
  MlaDecodeRun run_step(const MlaDecodeProblem& step, const MlaDecodeInputs& in,
                        std::span<const std::int64_t>) override {
    MlaDecodeProblem planned = step;
    const MlaDecodeProblem first = sequence_step(seq_, 0);
    for (std::size_t r = 0; r < planned.kv_lens.size(); ++r) {
      // Slots active now and at step 0 read the tokens step 0's plan covered.
      if (planned.kv_lens[r] > 0 && first.kv_lens[r] > 0) planned.kv_lens[r] = first.kv_lens[r];
    }
    return model_run(planned, in);
  }

 private:
  MlaDecodeProblem seq_;
};

class ThrowingSession final : public MlaSequenceSession {
 public:
  MlaDecodeRun run_step(const MlaDecodeProblem& step, const MlaDecodeInputs& in,
                        std::span<const std::int64_t>) override {
    if (++calls == 3) throw std::runtime_error("launch failed");
    return model_run(step, in);
  }
  int calls = 0;
};

enum class SessionKind { stateless, stale, throwing };

class ModelBackend final : public Backend {
 public:
  explicit ModelBackend(SessionKind kind = SessionKind::stateless) : kind_(kind) {}
  std::string name() const override { return "model"; }
  std::string device_name() const override { return "host model"; }
  std::optional<std::string> supports(const MlaDecodeProblem& p) const override {
    if (max_kv && max_kv_len(p) > *max_kv) return "kv_len " + std::to_string(max_kv_len(p)) + " is too long";
    return std::nullopt;
  }
  std::optional<std::string> supports(const KvGatherProblem&) const override { return "no gathers"; }
  MlaDecodeRun run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet&) override {
    refuse_sequence_run(p, name());
    ++runs;
    return model_run(p, in);
  }
  KvGatherRun run(const KvGatherProblem&, const KvGatherInputs&, const FaultSet&) override {
    throw std::logic_error("no gathers");
  }
  std::unique_ptr<MlaSequenceSession> begin_sequence(const MlaDecodeProblem& seq, const FaultSet& f) override {
    switch (kind_) {
      case SessionKind::stale:
        return std::make_unique<StaleLengthsSession>(seq);
      case SessionKind::throwing:
        return std::make_unique<ThrowingSession>();
      case SessionKind::stateless:
        break;
    }
    return Backend::begin_sequence(seq, f);
  }
  PRoundingPoint p_rounding() const override { return PRoundingPoint::to_mma_input; }

  std::optional<int> max_kv;
  int runs = 0;

 private:
  SessionKind kind_;
};

// Four slots over six steps with a leave and a join, q_len 2 on one slot.
MlaDecodeProblem sequence() {
  const MlaDecodeProblem four_slots = small_latent_problem("seq", 16, {{40, 17, 0, 70}, {1, 2, 1, 1}});
  MlaDecodeProblem p = as_sequence(four_slots, 6, {0, 0, 6, 2}, {4, 6, 6, 6});
  p.seed = 11;
  return with_defaults(p);
}

TEST(SequenceCase, ACorrectBackendPassesEveryStepStatelessly) {
  ModelBackend backend;
  const CaseResult row = run_mla_case(sequence(), &backend, "");
  EXPECT_EQ(row.state, ResultState::passed) << row.reason;
  EXPECT_EQ(backend.runs, 6);
  EXPECT_EQ(row.repro, to_repro(sequence()));
  EXPECT_EQ(row.path, "model");
  EXPECT_FALSE(row.tensors.empty());
}

TEST(SequenceCase, AStalePlanFailsFromTheFirstStepItGoesStaleAndCountsTheSteps) {
  ModelBackend backend(SessionKind::stale);
  const CaseResult row = run_mla_case(sequence(), &backend, "");
  EXPECT_EQ(row.state, ResultState::failed);
  EXPECT_EQ(row.reason.rfind("step 1 of 6: ", 0), 0u) << row.reason;
  EXPECT_NE(row.reason.find("steps failed]"), std::string::npos) << row.reason;
}

TEST(SequenceCase, AnErrorNamesItsStepAndTheStepsNotRun) {
  ModelBackend backend(SessionKind::throwing);
  const CaseResult row = run_mla_case(sequence(), &backend, "");
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_EQ(row.reason.rfind("step 2 of 6: ", 0), 0u) << row.reason;
  EXPECT_NE(row.reason.find("launch failed"), std::string::npos) << row.reason;
  EXPECT_NE(row.reason.find("(steps 3..5 not run), steps 0..1 passed"), std::string::npos) << row.reason;
}

// The rule every driver of sequences shares (harness/sequence_row.hpp), the harness C API's included.
TEST(SequenceRow, TheFirstStepNotPassedNamesTheRowAndTheTimesAreSummed) {
  CaseResult before;
  before.id = "seq";
  before.reference_ms = 7.0;
  CaseResult passed = before, failed = before;
  passed.state = ResultState::passed;
  passed.device_ms = 1.0;
  passed.path = "split_kv";
  failed.state = ResultState::failed;
  failed.reason = "O: rms rel err 0.1 > 0.004";
  failed.device_ms = 2.0;
  failed.path = "persistent";
  SequenceRow row(before, 4);
  EXPECT_TRUE(row.add(0, passed));
  EXPECT_TRUE(row.add(1, failed));
  EXPECT_TRUE(row.add(2, failed));
  EXPECT_THROW(row.finish(), std::logic_error);  // step 3 neither added nor stopped for
  EXPECT_THROW(row.add(1, passed), std::logic_error);  // out of order
  EXPECT_TRUE(row.add(3, passed));
  const CaseResult settled = row.finish();
  EXPECT_EQ(settled.state, ResultState::failed);
  EXPECT_EQ(settled.reason, "step 1 of 4: O: rms rel err 0.1 > 0.004 [2 of 4 steps failed]");
  EXPECT_EQ(settled.device_ms, 6.0);
  EXPECT_EQ(settled.reference_ms, 7.0);
  EXPECT_EQ(settled.path, "persistent+split_kv");
}

TEST(SequenceRow, AnErroredOrSkippedStepEndsTheSequence) {
  CaseResult passed, errored, skipped;
  passed.state = ResultState::passed;
  errored.state = ResultState::errored;
  errored.reason = "backend raised RuntimeError";
  skipped.state = ResultState::skipped;
  skipped.reason = "not enough memory on this machine: ...";
  SequenceRow first(CaseResult{}, 3);
  EXPECT_TRUE(first.add(0, passed));
  EXPECT_FALSE(first.add(1, errored));
  EXPECT_THROW(first.add(2, passed), std::logic_error);
  EXPECT_EQ(first.finish().reason, "step 1 of 3: backend raised RuntimeError (steps 2..2 not run), steps 0..0 passed");
  SequenceRow at_start(CaseResult{}, 3);
  EXPECT_FALSE(at_start.add(0, skipped));
  EXPECT_EQ(at_start.finish().state, ResultState::skipped);
  EXPECT_EQ(at_start.finish().reason, "step 0 of 3: not enough memory on this machine: ... (steps 1..2 not run)");
  EXPECT_THROW(SequenceRow(CaseResult{}, 2).finish(), std::logic_error);  // no step
}

TEST(SequenceCase, ARefusedStepSkipsTheSequenceNamingIt) {
  ModelBackend backend;
  backend.max_kv = 72;  // slot 3 reaches 73 tokens at step 5
  const CaseResult row = run_mla_case(sequence(), &backend, "");
  EXPECT_EQ(row.state, ResultState::skipped);
  EXPECT_EQ(row.reason.rfind("step 5 of 6: ", 0), 0u) << row.reason;
  EXPECT_EQ(backend.runs, 0);
}

TEST(SequenceCase, OnePreparationServesEveryRun) {
  ModelBackend backend;
  const PreparedMlaCase prepared = prepare_mla_case(sequence(), &backend, "");
  ASSERT_TRUE(prepared.ready_for_device) << prepared.row.reason;
  ASSERT_EQ(prepared.steps.size(), 6u);
  EXPECT_EQ(prepared.steps[3].problem, sequence_step(sequence(), 3));
  const CaseResult a = finish_mla_case(prepared, &backend);
  const CaseResult b = finish_mla_case(prepared, &backend);
  EXPECT_EQ(a.state, ResultState::passed) << a.reason;
  EXPECT_EQ(b.state, ResultState::passed) << b.reason;
  EXPECT_EQ(backend.runs, 12);
}

TEST(SequenceCase, RunRefusesASequenceOutsideASession) {
  ModelBackend backend;
  const MlaDecodeProblem p = sequence();
  EXPECT_THROW(backend.run(p, MlaDecodeInputs{}, FaultSet{}), std::invalid_argument);
}

}  // namespace
}  // namespace mlacheck
