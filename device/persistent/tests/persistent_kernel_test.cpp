// The persistent kernels against the Eigen oracle, launched directly on plans for a chosen number
// of work lists: one (every tile whole, no reduce), a few (many items per block, so shared memory
// is reused from item to item), many (long requests cut into short pieces, rows of later pieces
// that see nothing). Partial buffers are poisoned with NaN, so a partial row the reduce read
// without it having been written would show. SKIPPED where no GPU is present.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "device/platform/device_info.hpp"
#include "device/tests/direct_launch_support.hpp"
#include "device/tests/fp8_query_cases.hpp"
#include "device/tests/requires_device.hpp"
#include "persistent_run.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck::kernels {
namespace {

MlaDecodeProblem problem(int heads, std::vector<int> kv_lens, std::vector<int> q_lens, int lv = 512, int rope = 64,
                         DType kv_dtype = DType::bf16) {
  MlaDecodeProblem p = latent_problem(heads, lv, rope, {std::move(kv_lens), std::move(q_lens)});
  p.kv_dtype = kv_dtype;
  return with_defaults(p);
}

// Runs p on num_cus work lists and checks it against the oracle; returns the plan's walk.
// took_wgmma: where to say whether it ran on the Hopper kernel; portable: keep it on the portable one.
PlanWalk expect_matches_oracle(const MlaDecodeProblem& p, int num_cus, bool* took_wgmma = nullptr,
                               bool portable = false) {
  validate(p);
  SCOPED_TRACE(to_repro(p) + " num_cus=" + std::to_string(num_cus));
  const MlaDecodeInputs in = make_inputs(p);
  const PersistentRun got = run_persistent(p, in, num_cus, portable);
  if (took_wgmma != nullptr) *took_wgmma = got.wgmma;
  EXPECT_TRUE(got.walk.clean()) << got.walk.summary();
  expect_launch_matches_oracle(p, in, got);
  return got.walk;
}

using PersistentKernelTest = RequiresDevice;

// The Hopper kernel (persistent_wgmma_kernel.hpp) on the launches it takes, Lv 256: 32, 64 and
// 128 heads, 16 heads of four tokens, bf16 and f16, one work list (nothing split, row groups back
// to back in one block), a few and many (split tiles, partial rows, rows that see nothing). On an
// sm_90 GPU every one must run on it, elsewhere none; Lv 512 stays on the portable kernel
// (persistent_wgmma_fits). Each matches the oracle, and so does the portable kernel on the same
// launch.
TEST_F(PersistentKernelTest, HopperKernelTakesLv256) {
  const bool hopper = device_info().arch.rfind("sm_90", 0) == 0;
  std::vector<MlaDecodeProblem> problems = {
      problem(64, {1, 33, 1000, 4097}, {1, 1, 1, 1}, 256),
      problem(32, {513, 40}, {1, 1}, 256),
      problem(16, {40, 100, 4, 9}, {4, 3, 4, 2}, 256),
  };
  MlaDecodeProblem f16 = problem(128, {333, 64}, {2, 1}, 256);
  f16.q_dtype = f16.kv_dtype = f16.o_dtype = DType::f16;
  problems.push_back(f16);
  for (const MlaDecodeProblem& p : problems) {
    for (int num_cus : {1, 5, 64}) {
      bool took = false;
      expect_matches_oracle(p, num_cus, &took);
      EXPECT_EQ(took, hopper) << to_repro(p) << " on " << device_info().arch;
      bool took_portable = true;
      expect_matches_oracle(p, num_cus, &took_portable, /*portable=*/true);
      EXPECT_FALSE(took_portable);
    }
  }
  bool took_lv512 = true;
  expect_matches_oracle(problem(64, {300, 21}, {1, 1}), 5, &took_lv512);
  EXPECT_FALSE(took_lv512);
}

TEST_F(PersistentKernelTest, OneWorkListSplitsNothing) {
  const MlaDecodeProblem p = problem(16, {1, 17, 300, 40, 9}, {1, 2, 3, 8, 5});
  const PlanWalk walk = expect_matches_oracle(p, 1);
  EXPECT_EQ(walk.split_tiles, 0);
}

TEST_F(PersistentKernelTest, FewWorkListsHoldManyItemsEach) {
  // 12 requests on 3 lists: each block walks several items, whole and split.
  const MlaDecodeProblem p =
      problem(16, {1000, 17, 2, 515, 64, 33, 129, 16, 15, 1, 700, 8}, {1, 1, 2, 3, 4, 1, 6, 7, 8, 1, 5, 8});
  const PlanWalk walk = expect_matches_oracle(p, 3);
  EXPECT_GT(walk.split_tiles, 0);
}

TEST_F(PersistentKernelTest, ManyWorkListsCutLongRequestsIntoPieces) {
  // Pieces of 5 granules (64 lists) and of 2 (300 lists). With 2, the 8-token tile of the first
  // request ends in a piece holding only its last kv token, which rows 0..6 do not see: they
  // write LSE -inf, which the reduce must skip without NaN.
  const MlaDecodeProblem p = problem(16, {4097, 100, 40}, {8, 7, 3});
  EXPECT_GT(expect_matches_oracle(p, 64).split_tiles, 0);
  const PlanWalk walk = expect_matches_oracle(p, 300);
  EXPECT_GT(walk.split_tiles, 0);
  EXPECT_GT(walk.empty_partial_rows, 0);
}

TEST_F(PersistentKernelTest, HeadCountsChangeTheQTile) {
  // Padded heads 16, 32, 128, 256: q tiles of 8, 4, 1 and 1 tokens, walked in 1, 2, 8 and 16
  // head tiles per token.
  for (int heads : {8, 32, 128, 256}) expect_matches_oracle(problem(heads, {2000, 9}, {3, 2}), 40);
}

TEST_F(PersistentKernelTest, PaddedRequestsRunTheirEmptyItems) {
  // kv_len 0 requests (CUDA-graph padding), one with 12 query rows (two q tiles at 16 heads): each
  // tile is one item with no kv, whose rows the kernel writes as O 0, LSE -inf; on 1 list beside
  // whole items, on 40 beside a split request.
  const MlaDecodeProblem p = problem(16, {0, 3000, 0, 17, 0}, {1, 4, 12, 1, 2});
  EXPECT_EQ(expect_matches_oracle(p, 1).split_tiles, 0);
  EXPECT_GT(expect_matches_oracle(p, 40).split_tiles, 0);
  expect_matches_oracle(problem(128, {0, 700}, {2, 1}), 8);  // q tiles of one token
}

// fp8 queries against a cache of their type (issue 16), judged by the tight rule of P in bf16
// (device/tests/fp8_query_cases.hpp lists what the problems cover): on one work list (whole tiles,
// no reduce) and on 40 (long requests cut into pieces, the reduce merging them).
TEST_F(PersistentKernelTest, Fp8QueriesMatchTheOracle) {
  for (const MlaDecodeProblem& p : test::fp8_query_kernel_problems()) {
    const MlaDecodeInputs in = make_inputs(p);
    for (int num_cus : {1, 40}) {
      SCOPED_TRACE(to_repro(p) + " num_cus=" + std::to_string(num_cus));
      const PersistentRun got = run_persistent(p, in, num_cus);
      EXPECT_TRUE(got.walk.clean()) << got.walk.summary();
      test::expect_fp8_query_run_matches_oracle(p, in, got);
    }
  }
}

// A persistent launch handed a q_scale of 1 (a kernel that drops it) fails the same check.
TEST_F(PersistentKernelTest, Fp8QueriesWithoutTheirScaleFail) {
  test::expect_every_run_without_q_scale_fails(
      [](const MlaDecodeProblem& p, const MlaDecodeInputs& in) { return run_persistent(p, in, 40); });
}

TEST_F(PersistentKernelTest, ValueAndRopeWidths) {
  // The persistent kernel's own instances of the row widths: rows of 16-bit Lk with
  // Lk % 8 != 0 (rope 1, 5, 33) and fp8 rows with Lk % 16 != 0 (rope 8) take the element-wise
  // loads; Lv 80 and 272 leave most of their value tile empty. On 40 work lists the first request
  // is cut into three pieces (partials and the reduce), the second stays whole (the final store).
  const int shapes[][2] = {{256, 64}, {16, 0}, {48, 8}, {80, 5}, {128, 1}, {496, 64}, {512, 0}, {272, 33}};
  for (const auto& [lv, rope] : shapes) {
    for (DType kv : {DType::bf16, DType::fp8_e4m3fn})
      expect_matches_oracle(problem(16, {40, 3}, {2, 1}, lv, rope, kv), 40);
  }
}

}  // namespace
}  // namespace mlacheck::kernels
