// The persistent step's plan on the host (device/hip_backend/persistent_plan.hpp): clean, the sizing
// covers the plan and the partial buffers get exactly the rows the kernel writes; with fault
// metadata-sized-for-single-token (UPSTREAM R3) the kernel runs the same plan, but the partial
// rows were sized for one token per partial while MTP verify's partials write q_len rows each.
#include "device/hip_backend/persistent_plan.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "device/planner/planner_error.hpp"

namespace mlacheck {
namespace {

// Block slots the planner sees: an H100's 132 SMs and an MI300X's 304 CUs, one or two blocks each.
constexpr int kSlots[] = {132, 264, 304, 608};
const FaultSet kR3{Fault::metadata_sized_for_single_token};

MlaDecodeProblem problem(int total_heads, int tp, std::vector<int> kv_lens, int q_len) {
  MlaDecodeProblem p;
  p.name = "plan";
  p.total_heads = total_heads;
  p.tp = tp;
  p.q_lens.assign(kv_lens.size(), q_len);
  p.kv_lens = std::move(kv_lens);
  p.path = DecodePath::persistent;
  return with_defaults(p);
}

PersistentPlan plan(const MlaDecodeProblem& p, int slots, const FaultSet& faults) {
  return plan_persistent_decode(planner_inputs(p), slots, faults);
}

TEST(PersistentPlan, CleanPartialBuffersHoldExactlyTheRowsTheKernelWrites) {
  for (int q_len : {1, 2, 4, 7}) {
    for (int slots : kSlots) {
      const PersistentPlan clean = plan(problem(128, 8, {8192, 8192, 6000, 8192}, q_len), slots, {});
      EXPECT_EQ(clean.sized, clean.built);
      EXPECT_GT(clean.header.partials, 0) << "long caches split";
      EXPECT_EQ(clean.partial_rows, clean.header.partial_rows) << "q_len " << q_len << ", " << slots << " slots";
    }
  }
}

// DeepSeek-V3 at TP8 (16 heads per rank) and Kimi-K2 at TP8 (8, padded to 16) in MTP3 verify.
TEST(PersistentPlan, SingleTokenSizingLeavesMtpVerifyPartialRowsPastTheBuffers) {
  for (const MlaDecodeProblem& p :
       {problem(128, 8, {8192, 8192, 8192, 8192}, 4), problem(64, 8, {8192, 5000, 8192}, 4)}) {
    for (int slots : kSlots) {
      SCOPED_TRACE(std::to_string(heads(p)) + " heads, " + std::to_string(slots) + " slots");
      const PersistentPlan clean = plan(p, slots, {});
      const PersistentPlan faulted = plan(p, slots, kR3);
      EXPECT_EQ(faulted.sized.max_q_len, 1);
      EXPECT_EQ(faulted.built.max_q_len, 4);
      // The kernel runs the plan the clean step runs, from six buffers of the same shapes...
      EXPECT_EQ(faulted.header, clean.header);
      EXPECT_EQ(faulted.metadata, clean.metadata);
      EXPECT_EQ(clean.header.partial_rows, 4 * clean.header.partials) << "every partial writes its tile's 4 tokens";
      // ... but the partial buffers hold one row per partial of the sizing's bound, fewer than it writes.
      EXPECT_EQ(faulted.partial_rows, faulted.sized.partial_rows);
      EXPECT_EQ(faulted.sized.partial_rows, faulted.sized.max_partials);
      EXPECT_LT(faulted.partial_rows, clean.header.partial_rows);
    }
  }
}

TEST(PersistentPlan, SingleTokenSizingIsHarmlessForSingleTokenDecode) {
  for (int slots : kSlots) {
    const MlaDecodeProblem p = problem(64, 8, {8192, 5000, 8192}, 1);
    const PersistentPlan clean = plan(p, slots, {});
    const PersistentPlan faulted = plan(p, slots, kR3);
    EXPECT_EQ(faulted.sized, clean.sized);
    EXPECT_EQ(faulted.built, clean.built);
    EXPECT_EQ(faulted.header, clean.header);
    EXPECT_EQ(faulted.partial_rows, clean.partial_rows);
  }
}

// At 128 padded heads a q tile holds one token, so q_len 4 needs four times the items one token's
// sizing holds: our builder refuses the six short buffers (upstream's wrote past them).
TEST(PersistentPlan, SingleTokenSizingOfOneTokenTilesIsRefusedByTheBuilder) {
  const MlaDecodeProblem p = problem(128, 1, {8192, 8192}, 4);
  EXPECT_NO_THROW(plan(p, 132, {}));
  try {
    plan(p, 132, kR3);
    ADD_FAILURE() << "the builder wrote a plan into buffers sized for fewer items";
  } catch (const InvalidPlanInput& e) {
    EXPECT_NE(std::string(e.what()).find("work_info_set"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mlacheck
