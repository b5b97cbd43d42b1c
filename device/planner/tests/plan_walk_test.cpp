// The twin must be able to fail (STYLE.md 9): a clean walk of every generated plan means nothing
// unless the same walk flags a plan with one field wrong.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <utility>

#include "device/planner/tests/planner_cases.hpp"

namespace mlacheck::planner_test {
namespace {

// Word offsets of WorkItem fields within work_info_set.
enum ItemWord : std::size_t { kBatch = 0, kPartialLoc = 1, kKvStart = 4, kKvEnd = 5, kKvOffset = 6, kPad = 7 };

std::int32_t& word(Planned& p, std::int32_t item, ItemWord w) {
  return p.buffers.work_info_set[static_cast<std::size_t>(item) * kWorkItemInts + w];
}

}  // namespace

RC_GTEST_PROP(PlanWalkTwin, FlagsAPlanWithOneFieldCorrupted, ()) {
  const PlannerCase c = *gen_planner_case();
  Planned p = plan(c);
  RC_PRE(p.walk.clean());
  const std::int32_t k = *rc::gen::inRange(0, p.header.work_items);
  const int batch = static_cast<int>(c.q_lens.size());

  switch (*rc::gen::inRange(0, 6)) {
    case 0:  // kv_offset off: the kernel's causal mask moves
      word(p, k, kKvOffset) += *rc::gen::element(-2, -1, 1, 2);
      break;
    case 1:  // kv range moved by one token: a gap, an overlap or a range outside the request
      if (word(p, k, kKvEnd) - word(p, k, kKvStart) >= 2) {
        word(p, k, kKvStart) += 1;
      } else {
        word(p, k, kKvStart) -= 1;
      }
      break;
    case 2:  // an unsplit item made partial, or a split one made final
      word(p, k, kPartialLoc) = word(p, k, kPartialLoc) == -1 ? 0 : -1;
      break;
    case 3:  // another request
      word(p, k, kBatch) = (word(p, k, kBatch) + 1) % std::max(batch, 2);
      break;
    case 4:
      word(p, k, kPad) = 1;
      break;
    default:  // merged in the wrong order, or a plan for another head count
      if (p.header.partials >= 2) {
        std::swap(p.buffers.reduce_partial_map[0], p.buffers.reduce_partial_map[1]);
      } else {
        p.buffers.work_meta_data[0] += kHeadTile;
      }
  }
  const PlanWalk corrupted = walk_plan(view(std::as_const(p.buffers)), c.qo_indptr(), c.kv_indptr(), c.padded_heads);
  RC_ASSERT(!corrupted.clean());
}

// UPSTREAM.md S2: metadata planned for the per-rank 8 heads while q was padded to 16.
TEST(PlanWalkTwin, FlagsAPlanMadeForTheUnpaddedHeadCount) {
  const std::vector<std::int32_t> qo{0, 1, 2};
  const std::vector<std::int32_t> kv{0, 3000, 3100};
  const MetadataInfo info = metadata_info(2, 1, 8, 4);
  HostMetadata buffers = allocate_metadata(info);
  build_metadata(qo, kv, info, view(buffers));
  const PlanWalk w = walk_plan(view(std::as_const(buffers)), qo, kv, 16);
  ASSERT_EQ(w.structure.size(), 1u) << w.summary();
  EXPECT_EQ(w.structure[0], "plan made for 8 heads, the kernel runs 16");
}

}  // namespace mlacheck::planner_test
