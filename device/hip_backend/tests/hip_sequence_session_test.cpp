// The hip backend's decode sequence session on a GPU (SKIPPED with the reason where there is none):
// every step of a small sequence with a join and a leave, on each decode path, equals the same step
// run on its own through HipBackend::run bit for bit -- the buffers, intermediates and plan kept
// across steps change nothing when right -- with every canary intact; fault plan-stale-at-replay
// (UPSTREAM R5) leaves step 0 alone and changes the persistent path's output from step 1 on, without
// breaking a canary (the stale plan reads stale-but-allocated data), and changes nothing on split-KV.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mla_sequence.hpp"
#include "core/mla_sequence_inputs.hpp"
#include "device/backend.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

// One backend for the whole executable: a GPU context per case would dominate the time.
BackendOrReason& shared_backend() {
  static BackendOrReason backend = make_hip_backend(0);
  return backend;
}

class HipSequenceSession : public testing::TestWithParam<DecodePath> {
 protected:
  void SetUp() override {
    if (shared_backend().backend == nullptr) GTEST_SKIP() << shared_backend().reason;
  }
  Backend& backend() { return *shared_backend().backend; }
};

// Three slots over four steps: slot 2 is padding until it joins at step 1 with 33 tokens (q_len 2:
// MTP verify), slot 1 leaves at step 3; 8 heads padded to 16.
MlaDecodeProblem small_sequence(DecodePath path) {
  const MlaDecodeProblem slots = on_tp_rank(test_problem("hip_sequence", 64, {{300, 1100, 33}, {2, 2, 2}}), 8, 0);
  MlaDecodeProblem p = as_sequence(slots, 4, {0, 0, 1}, {4, 3, 4});
  p.path = path;
  return with_defaults(p);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool same_outputs(const MlaDecodeRun& a, const MlaDecodeRun& b) {
  return same_bits(a.out.o, b.out.o) && same_bits(a.out.lse, b.out.lse) && a.o_unwritten == b.o_unwritten &&
         a.lse_unwritten == b.lse_unwritten;
}

std::size_t count_set(const std::vector<std::uint8_t>& flags) {
  std::size_t n = 0;
  for (std::uint8_t f : flags) n += f;
  return n;
}

// Runs the sequence through a session with `faults`, each step against the clean stateless run of
// the same step; calls check(step, session_run, stateless_run).
template <class Check>
void each_step(Backend& backend, const MlaDecodeProblem& seq, const FaultSet& faults, Check check) {
  const std::unique_ptr<MlaSequenceSession> session = backend.begin_sequence(seq, faults);
  MlaSequenceInputs inputs(seq);
  for (int k = 0; k < seq.steps; ++k) {
    inputs.advance();
    const MlaDecodeRun got = session->run_step(inputs.problem(), inputs.inputs(), inputs.written_slots());
    const MlaDecodeRun want = backend.run(inputs.problem(), inputs.inputs(), {});
    check(k, got, want);
  }
}

TEST_P(HipSequenceSession, EveryStepEqualsTheStepRunOnItsOwn) {
  const MlaDecodeProblem seq = small_sequence(GetParam());
  each_step(backend(), seq, {}, [&](int k, const MlaDecodeRun& got, const MlaDecodeRun& want) {
    SCOPED_TRACE("step " + std::to_string(k) + " of " + to_repro(seq));
    EXPECT_EQ(got.diag.path, std::string(to_string(GetParam())));
    EXPECT_TRUE(got.diag.broken_canaries.empty());
    EXPECT_EQ(count_set(got.o_unwritten), 0u);
    EXPECT_EQ(count_set(got.lse_unwritten), 0u);
    EXPECT_TRUE(same_outputs(got, want)) << "the session's step differs from the stateless run";
  });
}

TEST_P(HipSequenceSession, PlanStaleAtReplayChangesThePersistentPathFromTheSecondStepOn) {
  const MlaDecodeProblem seq = small_sequence(GetParam());
  const bool persistent = GetParam() == DecodePath::persistent;
  each_step(
      backend(), seq, {Fault::plan_stale_at_replay}, [&](int k, const MlaDecodeRun& got, const MlaDecodeRun& want) {
        SCOPED_TRACE("step " + std::to_string(k) + " of " + to_repro(seq));
        // Stale but allocated: the first step's plan reads kv_indices positions the buffer holds.
        EXPECT_TRUE(got.diag.broken_canaries.empty());
        if (persistent && k > 0) {
          EXPECT_FALSE(same_outputs(got, want)) << "a plan kept from step 0 must change the output";
        } else {
          EXPECT_TRUE(same_outputs(got, want)) << (persistent ? "step 0 plans for itself" : "split-KV has no plan");
        }
      });
}

TEST_P(HipSequenceSession, RunRefusesASequence) {
  const MlaDecodeProblem seq = small_sequence(GetParam());
  MlaSequenceInputs inputs(seq);
  inputs.advance();
  EXPECT_THROW(backend().run(seq, inputs.inputs(), {}), std::invalid_argument);
  EXPECT_EQ(backend().lacks_memory(seq), std::nullopt);
}

TEST_P(HipSequenceSession, RefusesAStepOutOfOrder) {
  const MlaDecodeProblem seq = small_sequence(GetParam());
  const std::unique_ptr<MlaSequenceSession> session = backend().begin_sequence(seq, {});
  MlaSequenceInputs inputs(seq);
  inputs.advance();
  inputs.advance();
  EXPECT_THROW(session->run_step(inputs.problem(), inputs.inputs(), inputs.written_slots()), std::invalid_argument);
}

std::string path_name(const testing::TestParamInfo<DecodePath>& param) { return std::string(to_string(param.param)); }

INSTANTIATE_TEST_SUITE_P(Path, HipSequenceSession, testing::Values(DecodePath::split_kv, DecodePath::persistent),
                         path_name);

}  // namespace
}  // namespace mlacheck
