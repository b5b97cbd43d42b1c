// Small plans worked out by hand (the arithmetic is in the comments), the shapes metadata_info
// gives, and the planner inputs of a problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

#include "device/planner/plan_inputs.hpp"
#include "device/planner/planner_error.hpp"
#include "device/planner/tests/planner_cases.hpp"

namespace mlacheck::planner_test {
namespace {

std::vector<WorkItem> items_of(const HostMetadata& m, const MetadataHeader& h) {
  std::vector<WorkItem> items;
  for (std::int32_t i = 0; i < h.work_items; ++i) {
    const auto* w = m.work_info_set.data() + static_cast<std::ptrdiff_t>(i) * kWorkItemInts;
    items.push_back({w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]});
  }
  return items;
}

Planned plan_of(std::vector<int> q_lens, std::vector<int> kv_lens, int padded_heads, int num_cus) {
  const auto batch = static_cast<int>(q_lens.size());
  const int max_q_len = *std::max_element(q_lens.begin(), q_lens.end());
  return plan(PlannerCase{num_cus, padded_heads, batch, max_q_len, std::move(q_lens), std::move(kv_lens)});
}

}  // namespace

TEST(BuildMetadata, ShortRequestIsOneUnsplitItem) {
  // 100 tokens = 7 granules; total 7 + 16 = 23; cap 23 + 16 = 39.
  const Planned p = plan_of({1}, {100}, 16, 1);
  EXPECT_EQ(p.header, (MetadataHeader{16, 8, 1, 1, 0, 0, 0, 39}));
  EXPECT_EQ(items_of(p.buffers, p.header), (std::vector<WorkItem>{{0, -1, 0, 1, 0, 100, 0, 0}}));
  EXPECT_EQ(p.buffers.work_indptr, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(p.buffers.reduce_indptr, (std::vector<std::int32_t>{0}));
  EXPECT_TRUE(p.walk.clean()) << p.walk.summary();
}

TEST(BuildMetadata, LongRequestSplitsOverTwoCus) {
  // 1000 tokens = 63 granules; total 79; fair share ceil(79 / 2) = 40; cap 56. CU 0 takes
  // 56 - 16 = 40 granules (640 tokens), CU 1 the remaining 23 granules (360 tokens) + 16 = 39.
  const Planned p = plan_of({1}, {1000}, 16, 2);
  EXPECT_EQ(p.header, (MetadataHeader{16, 8, 2, 2, 1, 2, 2, 56}));
  EXPECT_EQ(items_of(p.buffers, p.header),
            (std::vector<WorkItem>{{0, 0, 0, 1, 0, 640, 360, 0}, {0, 1, 0, 1, 640, 1000, 0, 0}}));
  EXPECT_EQ(p.buffers.work_indptr, (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(p.buffers.reduce_indptr, (std::vector<std::int32_t>{0, 2}));
  EXPECT_EQ(p.buffers.reduce_final_map, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(p.buffers.reduce_partial_map, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(p.walk.cu_payload, (std::vector<std::int64_t>{56, 39}));
  EXPECT_TRUE(p.walk.clean()) << p.walk.summary();
}

TEST(BuildMetadata, QTilesEndAtTheirLastRowsCausalHorizon) {
  // q_len 16 with 16 heads: tiles of 8 tokens. Rows 0..7 see at most 40 - 16 + 8 = 32 tokens
  // (2 granules, kv_offset 8); rows 8..15 see all 40 (3 granules). Cap (18 + 19) + 16 = 53.
  const Planned p = plan_of({16}, {40}, 16, 1);
  EXPECT_EQ(p.header, (MetadataHeader{16, 8, 1, 2, 0, 0, 0, 53}));
  EXPECT_EQ(items_of(p.buffers, p.header),
            (std::vector<WorkItem>{{0, -1, 0, 8, 0, 32, 8, 0}, {0, -1, 8, 16, 0, 40, 0, 0}}));
  EXPECT_TRUE(p.walk.clean()) << p.walk.summary();
}

TEST(BuildMetadata, ItemsIndexTheFlatQueryAndKvSpaces) {
  const Planned p = plan_of({4, 4}, {20, 40}, 16, 1);
  EXPECT_EQ(items_of(p.buffers, p.header),
            (std::vector<WorkItem>{{0, -1, 0, 4, 0, 20, 0, 0}, {1, -1, 4, 8, 20, 60, 0, 0}}));
  EXPECT_TRUE(p.walk.clean()) << p.walk.summary();
}

TEST(BuildMetadata, SplitItemCanHoldKvOnlyItsLastRowsSee) {
  // 273 tokens = 18 granules, q_len 8 (one tile); total 34, fair share 17, cap 33: CU 0 takes 17
  // granules (272 tokens), CU 1 the last token, which rows 0..6 do not see: their partial rows
  // hold no kv (O = 0, LSE = -inf) and the merge must ignore them.
  const Planned p = plan_of({8}, {273}, 16, 2);
  EXPECT_EQ(items_of(p.buffers, p.header),
            (std::vector<WorkItem>{{0, 0, 0, 8, 0, 272, 1, 0}, {0, 8, 0, 8, 272, 273, 0, 0}}));
  EXPECT_EQ(p.walk.empty_partial_rows, 7);
  EXPECT_TRUE(p.walk.clean()) << p.walk.summary();
}

TEST(BuildMetadata, UnusedTailsRepeatTheLastOffsetOrHoldZero) {
  const Planned p = plan(PlannerCase{4, 16, 8, 2, {1}, {5000}});
  const MetadataHeader& h = p.header;
  ASSERT_EQ(h.reduce_tiles, 1);
  for (std::size_t i = 1; i < p.buffers.reduce_indptr.size(); ++i) EXPECT_EQ(p.buffers.reduce_indptr[i], h.partials);
  for (std::size_t i = static_cast<std::size_t>(h.work_items) * kWorkItemInts; i < p.buffers.work_info_set.size();
       ++i) {
    EXPECT_EQ(p.buffers.work_info_set[i], 0);
  }
}

TEST(BuildMetadata, RefusesKvShorterThanTheQuery) {
  const MetadataInfo info = metadata_info(2, 4, 16, 8);
  HostMetadata m = allocate_metadata(info);
  const std::vector<std::int32_t> qo{0, 1, 5};
  const std::vector<std::int32_t> kv{0, 10, 13};
  try {
    build_metadata(qo, kv, info, view(m));
    FAIL() << "accepted kv_len 3 < q_len 4";
  } catch (const InvalidPlanInput& e) {
    EXPECT_STREQ(e.what(),
                 "persistent planner: request 1: kv_len=3 < q_len=4 (kv_indptr[1]=10, kv_indptr[2]=13); the query "
                 "tokens are part of the cache (only a padded request, kv_len 0, has none)");
  }
}

TEST(BuildMetadata, PaddedRequestsGetOneEmptyItemPerQTile) {
  // 16 heads: q tiles of 8 rows. Request 0 is padded (q_len 1), request 2 padded with q_len 12 (two
  // tiles); each tile is an unsplit item with no kv at its request's start, which the kernel runs
  // as rows that saw nothing (O 0, LSE -inf). total = 16 + (7 + 16) + 16 + 16 = 71; cap 71 + 16 = 87.
  const Planned p = plan_of({1, 1, 12}, {0, 100, 0}, 16, 1);
  EXPECT_EQ(p.header, (MetadataHeader{16, 8, 1, 4, 0, 0, 0, 87}));
  EXPECT_EQ(items_of(p.buffers, p.header), (std::vector<WorkItem>{{0, -1, 0, 1, 0, 0, 0, 0},
                                                                  {1, -1, 1, 2, 0, 100, 0, 0},
                                                                  {2, -1, 2, 10, 100, 100, 0, 0},
                                                                  {2, -1, 10, 14, 100, 100, 0, 0}}));
  EXPECT_TRUE(p.walk.clean()) << p.walk.summary();
}

TEST(BuildMetadata, PaddedRequestsNeverSplitAndFitTheBound) {
  // Many padded requests beside one long one on few CUs: the empty items cost their overhead and
  // are packed with the rest, the long request still splits, and metadata_info's sizes hold.
  std::vector<int> q_lens(64, 1), kv_lens(64, 0);
  kv_lens[5] = 16384;
  q_lens[9] = 4;
  const Planned p = plan_of(q_lens, kv_lens, 16, 4);
  EXPECT_TRUE(p.walk.clean()) << p.walk.summary();
  EXPECT_EQ(p.walk.split_tiles, 1);
  for (const WorkItem& it : items_of(p.buffers, p.header)) {
    if (it.batch != 5) {
      EXPECT_EQ(it.kv_start, it.kv_end) << "request " << it.batch;
    }
  }
}

TEST(PlanWalk, FindsAPaddedRequestWithoutAnItem) {
  // The walk's coverage rule holds for rows that see nothing: such a row still needs its one item.
  Planned p = plan_of({1, 1}, {40, 0}, 16, 1);
  ASSERT_TRUE(p.walk.clean()) << p.walk.summary();
  const std::vector<std::int32_t> qo{0, 1, 2};
  const std::vector<std::int32_t> kv{0, 40, 40};
  // Drop the padded request's item, the last one: one item fewer in work_indptr and the header.
  p.buffers.work_indptr[1] = 1;
  std::array<std::int32_t, kHeaderInts> words{};
  std::copy_n(p.buffers.work_meta_data.begin(), kHeaderInts, words.begin());
  auto header = std::bit_cast<MetadataHeader>(words);
  header.work_items = 1;
  words = std::bit_cast<std::array<std::int32_t, kHeaderInts>>(header);
  std::copy(words.begin(), words.end(), p.buffers.work_meta_data.begin());
  const PlanWalk w = walk_plan(view(std::as_const(p.buffers)), qo, kv, 16);
  ASSERT_FALSE(w.coverage.empty());
  EXPECT_NE(w.coverage[0].find("request 1 query row 1: covered by items of no q tile"), std::string::npos)
      << w.summary();
}

TEST(MetadataInfo, ShapesFollowTheDerivedBounds) {
  // 16 heads: tiles of 8 tokens, 2 per request of 16 tokens, 8 tiles for 4 requests; 8 CUs allow
  // 7 splits: 15 items, min(8, 7) = 7 reduce tiles, 7 + 7 = 14 partials of up to 8 rows.
  const MetadataInfo info = metadata_info(4, 16, 16, 8);
  EXPECT_EQ(info.q_tile_tokens, 8);
  EXPECT_EQ(info.max_work_items, 15);
  EXPECT_EQ(info.max_reduce_tiles, 7);
  EXPECT_EQ(info.max_partials, 14);
  EXPECT_EQ(info.partial_rows, 112);
  EXPECT_EQ(info.elements, (MetadataBuffers<std::size_t>{8, 9, 120, 8, 14, 14}));

  // 128 heads: one token per tile, so 16 tiles per request.
  EXPECT_EQ(metadata_info(4, 16, 128, 8).max_work_items, 4 * 16 + 7);
  // One CU never splits; the reduce buffers keep one element so they are never null on a device.
  EXPECT_EQ(metadata_info(3, 1, 16, 1).elements, (MetadataBuffers<std::size_t>{8, 2, 24, 1, 1, 1}));
}

TEST(MetadataInfo, BoundsAreAttainedByOneLongRequest) {
  // 3 CUs split one long tile twice: 1 + 2 items, all partial, one reduce tile.
  const Planned p = plan_of({1}, {16384}, 16, 3);
  EXPECT_EQ(p.header.work_items, p.info.max_work_items);
  EXPECT_EQ(p.header.partials, p.info.max_partials);
  EXPECT_EQ(p.header.reduce_tiles, p.info.max_reduce_tiles);
  EXPECT_EQ(p.header.partial_rows, p.info.partial_rows);
}

TEST(PlannerInputs, PadTheHeadCountAndSumTheLengths) {
  MlaDecodeProblem prob;
  prob.total_heads = 64;  // Kimi-K2 at TP8: 8 heads per rank, padded to 16
  prob.tp = 8;
  prob.kv_lens = {10, 20};
  prob.q_lens = {1, 3};
  const PlannerInputs in = planner_inputs(prob);
  EXPECT_EQ(in.padded_heads, 16);
  EXPECT_EQ(in.qo_indptr, (std::vector<std::int32_t>{0, 1, 4}));
  EXPECT_EQ(in.kv_indptr, (std::vector<std::int32_t>{0, 10, 30}));
  const MetadataInfo info = metadata_info(in, 80);
  EXPECT_EQ(info.max_batch, 2);
  EXPECT_EQ(info.max_q_len, 3);
  EXPECT_EQ(info.padded_heads, 16);
}

}  // namespace mlacheck::planner_test
