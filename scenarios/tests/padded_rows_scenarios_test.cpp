// The scenario rows of UPSTREAM R1, R2, R7 and R12 (padded batch rows, splits beyond the tokens)
// hold their bug's trigger, checked from the descriptor and the split-KV plan without a GPU: a
// row whose trigger drifted away (a split count that no longer leaves a split empty, a q_len that
// no longer separates query rows from requests) would pass clean and prove nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "core/mla_problem.hpp"
#include "device/kernels/split_kv_plan.hpp"
#include "scenarios/scenario.hpp"

namespace mlacheck::scenarios {
namespace {

// The compute-unit counts of the GPUs the kill matrix runs on (H100 SXM, MI300X) and every row-tile
// limit a platform and dtype give: the automatic split count must leave the trigger in place on all.
constexpr int kComputeUnits[] = {132, 304};
// What the kernels of a platform hold: CDNA's one row tile, a 2- or 4-tile limit, and Hopper's four
// with one-tile blocks two per SM.
constexpr kernels::RowTilePolicy kRowTilePolicies[] = {{1, 1}, {2, 1}, {4, 1}, {4, 2}};

std::vector<Scenario> rows_of(Fault fault) {
  std::vector<Scenario> out;
  for (const Scenario& s : load_scenarios(std::string(MLACHECK_SCENARIO_DIR) + "/upstream.csv")) {
    if (s.fault == fault) out.push_back(s);
  }
  return out;
}

bool has_padded_request(const MlaDecodeProblem& p) {
  return std::find(p.kv_lens.begin(), p.kv_lens.end(), 0) != p.kv_lens.end();
}

// (request, query row, split) triples whose row sees none of the split's kv although the request
// has tokens: the partials stage 1 must write as empty (UPSTREAM R2).
int empty_row_splits(const MlaDecodeProblem& p, int num_splits) {
  int n = 0;
  for (int b = 0; b < batch(p); ++b) {
    if (p.kv_lens[static_cast<std::size_t>(b)] == 0) continue;
    for (int t = 0; t < p.q_lens[static_cast<std::size_t>(b)]; ++t) {
      for (int s = 0; s < num_splits; ++s) {
        const kernels::KvRange r = kernels::split_kv_range(p.kv_lens[static_cast<std::size_t>(b)], num_splits, s);
        if (std::min<std::int64_t>(visible_kv(p, b, t), r.end) <= r.begin) ++n;
      }
    }
  }
  return n;
}

const MlaDecodeProblem& problem_of(const Scenario& s) { return std::get<MlaDecodeProblem>(s.problem); }

TEST(PaddedRowScenarios, EachNewFaultHasTwoRowsOnTheSplitKvPath) {
  for (Fault f : {Fault::empty_rows_unwritten, Fault::empty_split_unwritten, Fault::split_kv_lse_unwritten,
                  Fault::lengths_indexed_by_query_row}) {
    const auto rows = rows_of(f);
    EXPECT_GE(rows.size(), 2u) << to_string(f);
    for (const Scenario& s : rows) {
      // The faults branch in split-KV stage 1 or stage 2 (docs/faults.md).
      EXPECT_EQ(problem_of(s).path, DecodePath::split_kv) << s.id;
    }
  }
}

TEST(PaddedRowScenarios, R1RowsHoldPaddedRequests) {
  for (const Scenario& s : rows_of(Fault::empty_rows_unwritten)) {
    EXPECT_EQ(s.upstream, "R1") << s.id;
    EXPECT_TRUE(has_padded_request(problem_of(s))) << s.id;
  }
}

TEST(PaddedRowScenarios, R2RowsLeaveRowsWithEmptySplitsAtEveryAutomaticSplitCount) {
  for (const Scenario& s : rows_of(Fault::empty_split_unwritten)) {
    EXPECT_EQ(s.upstream, "R2") << s.id;
    const MlaDecodeProblem& p = problem_of(s);
    for (int cus : kComputeUnits) {
      for (const kernels::RowTilePolicy& policy : kRowTilePolicies) {
        const int splits = kernels::split_kv_num_splits(p, cus, policy);
        EXPECT_GT(empty_row_splits(p, splits), 0)
            << s.id << ": " << splits << " splits on " << cus << " CUs, row tiles " << policy.max_row_tiles
            << ", one-tile blocks per CU " << policy.one_tile_blocks_per_cu;
      }
    }
  }
  // The multi-token row: rows 0 and 1 of the 18-token request (q_len 4) see none of [16, 18).
  const auto rows = rows_of(Fault::empty_split_unwritten);
  const auto mtp = std::find_if(rows.begin(), rows.end(), [](const Scenario& s) {
    return std::any_of(problem_of(s).q_lens.begin(), problem_of(s).q_lens.end(), [](int q) { return q > 1; });
  });
  ASSERT_NE(mtp, rows.end()) << "no R2 row has rows of a multi-token request past a split";
}

TEST(PaddedRowScenarios, R7RowsAskForTheLse) {
  for (const Scenario& s : rows_of(Fault::split_kv_lse_unwritten)) EXPECT_EQ(s.upstream, "R7") << s.id;
}

TEST(PaddedRowScenarios, R12RowsHaveQueryRowsThatAreNotTheirRequests) {
  for (const Scenario& s : rows_of(Fault::lengths_indexed_by_query_row)) {
    EXPECT_EQ(s.upstream, "R12") << s.id;
    const MlaDecodeProblem& p = problem_of(s);
    // Under the fault request b reads kv_indptr at its first query row qo[b] and qo[b] + 1: request
    // 1 then reads another request's range (comparison), the last past the batch + 1 entries (crash).
    const std::vector<int> qo = qo_indptr(p);
    ASSERT_GE(batch(p), 2) << s.id;
    EXPECT_NE(qo[1], 1) << s.id;
    EXPECT_GT(qo[static_cast<std::size_t>(batch(p)) - 1] + 1, batch(p)) << s.id;
  }
}

}  // namespace
}  // namespace mlacheck::scenarios
