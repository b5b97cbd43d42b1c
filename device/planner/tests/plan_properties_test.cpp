// Properties of one plan: what the persistent kernels rely on when they walk it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <utility>

#include "device/planner/tests/planner_cases.hpp"

namespace mlacheck::planner_test {
namespace {

std::vector<WorkItem> items_of(const Planned& p) {
  std::vector<WorkItem> items(static_cast<std::size_t>(p.header.work_items));
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::array<std::int32_t, kWorkItemInts> raw{};
    std::copy_n(p.buffers.work_info_set.begin() + static_cast<std::ptrdiff_t>(i * kWorkItemInts), kWorkItemInts,
                raw.begin());
    items[i] = std::bit_cast<WorkItem>(raw);
  }
  return items;
}

void log_defects(const Planned& p) {
  if (!p.walk.clean()) RC_LOG() << p.walk.summary();
}

}  // namespace

RC_GTEST_PROP(PlannerProperty, CoversEveryVisibleKvPositionExactlyOnce, ()) {
  const PlannerCase c = *gen_planner_case();
  const Planned p = plan(c);
  log_defects(p);
  RC_ASSERT(p.walk.structure.empty());
  RC_ASSERT(p.walk.coverage.empty());
  // Counted from the causal rule alone: row t of a request sees kv_len - q_len + t + 1 positions,
  // none for a padded request.
  std::int64_t visible = 0;
  for (std::size_t b = 0; b < c.q_lens.size(); ++b) {
    for (int t = 0; t < c.q_lens[b]; ++t) visible += std::max(0, c.kv_lens[b] - c.q_lens[b] + t + 1);
  }
  RC_ASSERT(p.walk.covered == visible * ((c.padded_heads + kHeadTile - 1) / kHeadTile));
  RC_CLASSIFY(p.walk.split_tiles > 0, "some q tile split");
  RC_CLASSIFY(p.walk.empty_partial_rows > 0, "a partial row sees none of its item's kv");
  RC_CLASSIFY(std::find(c.kv_lens.begin(), c.kv_lens.end(), 0) != c.kv_lens.end(), "a padded request");
}

RC_GTEST_PROP(PlannerProperty, PartialRowsNeverCollide, ()) {
  const Planned p = plan(*gen_planner_case());
  log_defects(p);
  RC_ASSERT(p.walk.partials.empty());
  RC_ASSERT(p.header.partial_rows <= p.info.partial_rows);
  RC_CLASSIFY(p.header.partials > 0, "has partials");
}

RC_GTEST_PROP(PlannerProperty, UnsplitItemsWriteTheFinalOutput, ()) {
  const Planned p = plan(*gen_planner_case());
  const std::vector<WorkItem> items = items_of(p);
  std::map<std::pair<std::int32_t, std::int32_t>, int> items_per_tile;
  for (const WorkItem& it : items) ++items_per_tile[{it.qo_start, it.qo_end}];
  for (const WorkItem& it : items) {
    const bool split = items_per_tile[{it.qo_start, it.qo_end}] > 1;
    RC_ASSERT((it.partial_qo_loc == -1) == !split);
  }
}

RC_GTEST_PROP(PlannerProperty, KvOffsetAgreesWithTheCausalRule, ()) {
  const PlannerCase c = *gen_planner_case();
  const Planned p = plan(c);
  log_defects(p);
  const auto kv = c.kv_indptr();
  for (const WorkItem& it : items_of(p)) {
    // kv_offset counts the request's kv tokens after the item: the kernel's mask needs nothing else.
    RC_ASSERT(it.kv_end + it.kv_offset == kv[static_cast<std::size_t>(it.batch) + 1]);
  }
  RC_ASSERT(p.walk.causal.empty());
}

// metadata.hpp states the balance; this checks it against a total computed from the batch alone.
RC_GTEST_PROP(PlannerProperty, CuPayloadWithinOneItemOverheadOfTheMean, ()) {
  const PlannerCase c = *gen_planner_case();
  const Planned p = plan(c);
  RC_ASSERT(p.walk.structure.empty());
  const int tile = q_tile_tokens(c.padded_heads);
  std::int64_t total = 0;
  for (std::size_t b = 0; b < c.q_lens.size(); ++b) {
    for (int row_end = 0; row_end < c.q_lens[b];) {
      row_end = std::min(row_end + tile, c.q_lens[b]);
      total += (c.kv_lens[b] - c.q_lens[b] + row_end + kKvGranule - 1) / kKvGranule + kItemOverheadGranules;
    }
  }
  const std::int64_t n = c.num_cus;
  const std::int64_t fair_share = (total + n - 1) / n;
  RC_ASSERT(p.header.payload_cap == fair_share + kItemOverheadGranules);

  const std::vector<std::int64_t>& payload = p.walk.cu_payload;
  std::int64_t sum = 0;
  for (std::int64_t x : payload) sum += x;
  const std::int64_t mean_up = (sum + n - 1) / n;
  std::size_t last_busy = 0;
  for (std::size_t cu = 0; cu < payload.size(); ++cu) {
    RC_ASSERT(payload[cu] <= p.header.payload_cap);
    RC_ASSERT(payload[cu] <= mean_up + kItemOverheadGranules);
    if (payload[cu] > 0) last_busy = cu;
  }
  for (std::size_t cu = 0; cu < payload.size(); ++cu) {
    if (cu < last_busy) {
      RC_ASSERT(payload[cu] >= fair_share);
      RC_ASSERT(payload[cu] * n > sum - kItemOverheadGranules * n);  // above mean - one overhead
    } else if (cu > last_busy) {
      RC_ASSERT(payload[cu] == 0);
    }
  }
  RC_CLASSIFY(last_busy + 1 == payload.size(), "every CU busy");
}

RC_GTEST_PROP(PlannerProperty, PlanIsDeterministic, ()) {
  const PlannerCase c = *gen_planner_case();
  const Planned first = plan(c);
  // Planning again into buffers full of stale values must give the same bytes everywhere.
  HostMetadata again = allocate_metadata(first.info);
  for_each_buffer(again,
                  [](std::string_view, std::vector<std::int32_t>& b) { std::fill(b.begin(), b.end(), 0x5a5a5a5a); });
  const MetadataHeader header = build_metadata(c.qo_indptr(), c.kv_indptr(), first.info, view(again));
  RC_ASSERT(header == first.header);
  RC_ASSERT(again == first.buffers);
}

}  // namespace mlacheck::planner_test
