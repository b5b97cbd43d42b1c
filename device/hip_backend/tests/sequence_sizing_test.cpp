// What a decode sequence's session reserves before step 0 (sequence_intermediate_sizes), on the
// split-KV path, whose preparation needs no GPU: every intermediate at least as large as any step's
// own preparation asks for, kv_indices at the sum of the final lengths. (The persistent path's six
// plan buffers depend on the batch and q_len alone: device/tests/sequence_session_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>

#include "core/mla_sequence.hpp"
#include "device/hip_backend/hip_sequence_session.hpp"
#include "device/hip_backend/mla_decode_pipeline.hpp"
#include "device/hip_backend/staged_mla_tensors.hpp"
#include "device/hip_backend/tests/h100_like_device.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

// Lengths that change the split count from step to step: one long request leaves at step 2, so
// the later steps split the short ones more finely.
MlaDecodeProblem sequence() {
  MlaDecodeProblem p = as_sequence(test_problem("sizing", 8, {{3000, 200, 90}, {1, 2, 1}}), 5, {0, 0, 1}, {2, 5, 5});
  p.path = DecodePath::split_kv;
  return with_defaults(p);
}

TEST(SequenceIntermediateSizes, CoverEveryStepsOwnPreparation) {
  const MlaDecodeProblem seq = sequence();
  const SizingIntermediates sizes = sequence_intermediate_sizes(seq, DecodePath::split_kv, h100_like(), {});
  for (int k = 0; k < seq.steps; ++k) {
    GuardedBufferSet set(StagingMemory::host);
    GuardedIntermediates scratch(set);
    const MlaDecodeSession session(sequence_step(seq, k), StagedMlaTensors{}, scratch, h100_like(), nullptr, {});
    for (std::size_t i = 0; i < set.size(); ++i) {
      const GuardedBuffer& b = set.at(i);
      ASSERT_TRUE(sizes.needs().contains(b.name())) << b.name();
      EXPECT_GE(sizes.needs().at(b.name()).bytes, b.bytes()) << b.name() << " at step " << k;
    }
  }
  EXPECT_EQ(sizes.needs().at("kv_indices").bytes,
            static_cast<std::size_t>(kv_indptr(sequence_capacity(seq)).back()) * sizeof(std::int32_t));
}

}  // namespace
}  // namespace mlacheck
