// The device side of decode sequences that runs on the host, in every configuration: the default
// (stateless) session of Backend::begin_sequence over a fake backend, Backend::run's refusal of a
// sequence, the intermediates kept across steps (RetainedIntermediates, SizingIntermediates) in
// host memory, the per-step persistent plan (SequencePlans) and fault plan-stale-at-replay (R5):
// its registry entry and what it changes in the plan a step's launch reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mla_sequence.hpp"
#include "core/mla_sequence_inputs.hpp"
#include "core/poison_codes.hpp"
#include "device/backend.hpp"
#include "device/hip_backend/persistent_plan.hpp"
#include "device/hip_backend/retained_intermediates.hpp"
#include "device/hip_backend/sequence_plans.hpp"
#include "device/planner/plan_inputs.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

// Three slots over four steps: slot 1 leaves at step 2 and slot 2 joins there, on the blocks slot 1
// gave back; the others grow a token a step.
MlaDecodeProblem small_sequence() {
  MlaDecodeProblem p = as_sequence(small_latent_problem("seq", 16, {{20, 40, 5}, {1, 1, 1}}), 4, {0, 0, 2}, {4, 2, 4});
  p.path = DecodePath::persistent;
  return with_defaults(p);
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// --- fault registry -------------------------------------------------------------------------

TEST(PlanStaleAtReplay, IsAnUpstreamFaultWithItsName) {
  EXPECT_EQ(to_string(Fault::plan_stale_at_replay), "plan-stale-at-replay");
  EXPECT_EQ(parse_fault("plan-stale-at-replay"), Fault::plan_stale_at_replay);
  EXPECT_EQ(std::count(std::begin(kAllFaults), std::end(kAllFaults), Fault::plan_stale_at_replay), 1);
  EXPECT_EQ(std::count(std::begin(kPrecisionFaults), std::end(kPrecisionFaults), Fault::plan_stale_at_replay), 0);
  EXPECT_TRUE(FaultSet{Fault::plan_stale_at_replay}.has(Fault::plan_stale_at_replay));
}

// --- the persistent plan across steps --------------------------------------------------------

PersistentPlan plan_for(const MlaDecodeProblem& step) { return plan_persistent_decode(planner_inputs(step), 8, {}); }

TEST(SequencePlans, PlanSizingDependsOnBatchAndQLenOnly) {
  // The six buffers a sequence keeps are sized once: their shapes must not depend on the lengths,
  // so that every step's plan -- and under R5 the first step's -- fits the same buffers.
  const MlaDecodeProblem seq = small_sequence();
  const PersistentPlan capacity = plan_for(sequence_capacity(seq));
  for (int k = 0; k < seq.steps; ++k) {
    const PersistentPlan step = plan_for(sequence_step(seq, k));
    EXPECT_EQ(step.sized, capacity.sized) << "step " << k;
    EXPECT_EQ(step.built, capacity.built) << "step " << k;
  }
}

TEST(SequencePlans, CleanBuildsEveryStepsOwnPlan) {
  const MlaDecodeProblem seq = small_sequence();
  SequencePlans plans({});
  for (int k = 0; k < seq.steps; ++k) {
    int built = 0;
    const PersistentPlan& got = plans.next([&] {
      ++built;
      return plan_for(sequence_step(seq, k));
    });
    EXPECT_EQ(built, 1) << "step " << k;
    EXPECT_EQ(got.header, plan_for(sequence_step(seq, k)).header) << "step " << k;
    EXPECT_EQ(got.metadata, plan_for(sequence_step(seq, k)).metadata) << "step " << k;
  }
  EXPECT_EQ(plans.steps(), seq.steps);
}

TEST(SequencePlans, StaleAtReplayLaunchesTheFirstStepsPlanFromTheSecondStepOn) {
  const MlaDecodeProblem seq = small_sequence();
  SequencePlans plans({Fault::plan_stale_at_replay});
  const PersistentPlan first = plan_for(sequence_step(seq, 0));
  for (int k = 0; k < seq.steps; ++k) {
    int built = 0;
    const PersistentPlan& got = plans.next([&] {
      ++built;
      return plan_for(sequence_step(seq, k));
    });
    EXPECT_EQ(built, k == 0 ? 1 : 0) << "step " << k << ": never rebuilt after the first";
    EXPECT_EQ(got.metadata, first.metadata) << "step " << k;
    EXPECT_EQ(got.header, first.header) << "step " << k;
    // The lengths grew (and slot 2 joined), so the step's own plan differs from the stale one.
    if (k > 0) {
      EXPECT_NE(plan_for(sequence_step(seq, k)).metadata, first.metadata) << "step " << k;
    }
  }
}

TEST(SequencePlans, StalePlanReadsOnlyKvPositionsTheBusiestStepHolds) {
  // What keeps the stale launch in bounds: the kv_indices buffer holds the busiest step's tokens
  // (the capacity problem's total), and the first step's kv ranges end within its own total.
  const MlaDecodeProblem seq = small_sequence();
  const int step0_total = kv_indptr(sequence_step(seq, 0)).back();
  int busiest = 0;
  for (int k = 0; k < seq.steps; ++k) busiest = std::max(busiest, kv_indptr(sequence_step(seq, k)).back());
  EXPECT_LE(step0_total, busiest);
  EXPECT_LE(busiest, kv_indptr(sequence_capacity(seq)).back());
}

// --- intermediates kept across steps -----------------------------------------------------------

std::vector<std::int32_t> ints_of(const GuardedBuffer& b) {
  const std::vector<std::byte> bytes = b.download();
  std::vector<std::int32_t> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

TEST(RetainedIntermediates, ASecondRequestReturnsTheSameBuffer) {
  GuardedBufferSet set(StagingMemory::host);
  RetainedIntermediates scratch(set);
  void* o = scratch.output("partial_o", DType::f32, 64);
  std::int32_t* idx = scratch.indices("kv_indices", 100);
  scratch.set_step(1);
  EXPECT_EQ(scratch.output("partial_o", DType::f32, 64), o);
  EXPECT_EQ(scratch.output("partial_o", DType::f32, 10), o) << "smaller requests fit the buffer";
  EXPECT_EQ(scratch.indices("kv_indices", 60), idx);
  EXPECT_EQ(set.size(), 2u) << "no new allocation";
}

TEST(RetainedIntermediates, InputCopiesIntoTheKeptBufferAndLeavesTheRest) {
  GuardedBufferSet set(StagingMemory::host);
  RetainedIntermediates scratch(set);
  const std::vector<std::int32_t> first = {1, 2, 3, 4};
  const std::int32_t* p = scratch.input("work_indptr", first);
  EXPECT_EQ(ints_of(*scratch.held("work_indptr")), first);
  const std::vector<std::int32_t> second = {7, 8};
  EXPECT_EQ(scratch.input("work_indptr", second), p) << "copied into the captured buffer";
  EXPECT_EQ(ints_of(*scratch.held("work_indptr")), (std::vector<std::int32_t>{7, 8, 3, 4}));
}

TEST(RetainedIntermediates, KeepsWhatTheLastStepWroteInsteadOfPoisoningAgain) {
  GuardedBufferSet set(StagingMemory::host);
  RetainedIntermediates scratch(set);
  std::int32_t* idx = scratch.indices("kv_indices", 4);
  EXPECT_EQ(ints_of(*scratch.held("kv_indices")), std::vector<std::int32_t>(4, 0x7FFFFFFF)) << "poisoned once";
  idx[2] = 42;  // a kernel of step 0 (host memory stands in for the device)
  scratch.set_step(1);
  scratch.indices("kv_indices", 4);
  EXPECT_EQ(ints_of(*scratch.held("kv_indices"))[2], 42);
}

TEST(RetainedIntermediates, ARequestPastTheBufferNamesTheIntermediateTheStepAndBothSizes) {
  GuardedBufferSet set(StagingMemory::host);
  RetainedIntermediates scratch(set);
  scratch.indices("kv_indices", 100);
  scratch.set_step(3);
  EXPECT_THROW(scratch.indices("kv_indices", 101), std::length_error);
  const std::string why = message_of([&] { scratch.indices("kv_indices", 101); });
  EXPECT_NE(why.find("'kv_indices'"), std::string::npos) << why;
  EXPECT_NE(why.find("step 3"), std::string::npos) << why;
  EXPECT_NE(why.find("404"), std::string::npos) << why;
  EXPECT_NE(why.find("400"), std::string::npos) << why;
  const std::vector<std::int32_t> big(3, 0);
  scratch.input("reduce_indptr", std::vector<std::int32_t>(2, 0));
  EXPECT_THROW(scratch.input("reduce_indptr", big), std::length_error);
  EXPECT_THROW(scratch.output("kv_indices", DType::f32, 200), std::length_error);
}

TEST(RetainedIntermediates, ReserveAllocatesTheLargestRecordedRequestPoisoned) {
  SizingIntermediates sizes;
  EXPECT_EQ(sizes.output("partial_o", DType::f32, 10), nullptr);
  sizes.output("partial_o", DType::f32, 30);
  sizes.output("partial_o", DType::f32, 20);
  sizes.indices("kv_indices", 7);
  sizes.input("work_indptr", std::vector<std::int32_t>(5, 1));
  sizes.output("o_padded", DType::bf16, 9);
  ASSERT_EQ(sizes.needs().size(), 4u);
  EXPECT_EQ(sizes.needs().at("partial_o").bytes, 120u);

  GuardedBufferSet set(StagingMemory::host);
  RetainedIntermediates scratch(set);
  scratch.reserve(sizes);
  ASSERT_EQ(set.size(), 4u);
  EXPECT_EQ(scratch.held("partial_o")->bytes(), 120u);
  EXPECT_EQ(scratch.held("kv_indices")->bytes(), 28u);
  EXPECT_EQ(scratch.held("work_indptr")->bytes(), 20u);
  EXPECT_EQ(scratch.held("o_padded")->bytes(), 18u);
  EXPECT_EQ(ints_of(*scratch.held("partial_o")), std::vector<std::int32_t>(30, static_cast<std::int32_t>(kPoisonF32)));
  EXPECT_EQ(ints_of(*scratch.held("work_indptr")), std::vector<std::int32_t>(5, 0x7FFFFFFF));
  void* o = scratch.held("partial_o")->data();
  EXPECT_EQ(scratch.output("partial_o", DType::f32, 30), o);
  EXPECT_THROW(scratch.output("partial_o", DType::f32, 31), std::length_error);
  EXPECT_TRUE(set.broken_canaries().empty());
}

// --- the default session: stateless, through run() ----------------------------------------------

class FakeBackend final : public Backend {
 public:
  std::string name() const override { return "fake"; }
  std::string device_name() const override { return "none"; }
  std::optional<std::string> supports(const MlaDecodeProblem&) const override { return std::nullopt; }
  std::optional<std::string> supports(const KvGatherProblem&) const override { return std::nullopt; }
  MlaDecodeRun run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet& faults) override {
    validate(p);
    refuse_sequence_run(p, name());
    problems.push_back(p);
    q_sizes.push_back(in.q.size());
    fault_sets.push_back(faults);
    MlaDecodeRun run;
    run.diag.path = "fake step " + std::to_string(problems.size() - 1);
    return run;
  }
  KvGatherRun run(const KvGatherProblem&, const KvGatherInputs&, const FaultSet&) override { return {}; }

  std::vector<MlaDecodeProblem> problems;
  std::vector<std::size_t> q_sizes;
  std::vector<FaultSet> fault_sets;
};

TEST(StatelessSequenceSession, RunsEveryStepThroughRunInOrder) {
  const MlaDecodeProblem seq = small_sequence();
  FakeBackend backend;
  const FaultSet faults{Fault::plan_stale_at_replay};
  const std::unique_ptr<MlaSequenceSession> session = backend.begin_sequence(seq, faults);
  MlaSequenceInputs inputs(seq);
  for (int k = 0; k < seq.steps; ++k) {
    inputs.advance();
    const MlaDecodeRun run = session->run_step(inputs.problem(), inputs.inputs(), inputs.written_slots());
    EXPECT_EQ(run.diag.path, "fake step " + std::to_string(k));
  }
  ASSERT_EQ(backend.problems.size(), static_cast<std::size_t>(seq.steps));
  for (int k = 0; k < seq.steps; ++k) {
    const auto i = static_cast<std::size_t>(k);
    EXPECT_EQ(backend.problems[i], sequence_step(seq, k));
    EXPECT_EQ(backend.fault_sets[i], faults);
  }
  EXPECT_THROW(session->run_step(inputs.problem(), inputs.inputs(), inputs.written_slots()), std::invalid_argument)
      << "no step after the last";
}

TEST(StatelessSequenceSession, RefusesAStepOutOfOrder) {
  const MlaDecodeProblem seq = small_sequence();
  FakeBackend backend;
  const std::unique_ptr<MlaSequenceSession> session = backend.begin_sequence(seq, {});
  MlaSequenceInputs inputs(seq);
  inputs.advance();
  inputs.advance();  // step 1 handed in as the first
  EXPECT_THROW(session->run_step(inputs.problem(), inputs.inputs(), inputs.written_slots()), std::invalid_argument);
  EXPECT_TRUE(backend.problems.empty());
}

TEST(RefuseSequenceRun, NamesTheStepsAndBeginSequence) {
  const MlaDecodeProblem seq = small_sequence();
  EXPECT_NO_THROW(refuse_sequence_run(sequence_step(seq, 1), "fake"));
  const std::string why = message_of([&] { refuse_sequence_run(seq, "fake"); });
  EXPECT_NE(why.find("fake backend cannot run seq"), std::string::npos) << why;
  EXPECT_NE(why.find("decode sequence of 4 steps"), std::string::npos) << why;
  EXPECT_NE(why.find("begin_sequence"), std::string::npos) << why;
  FakeBackend backend;
  MlaSequenceInputs inputs(seq);
  inputs.advance();
  EXPECT_THROW(backend.run(seq, inputs.inputs(), {}), std::invalid_argument);
}

}  // namespace
}  // namespace mlacheck
