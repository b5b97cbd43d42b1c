// Page-index expansion and the device prefix sums against their host twins, bitwise.
#include "reference/page_indices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "core/mla_inputs.hpp"
#include "device/layout/tests/bitwise_equal.hpp"
#include "device/layout/tests/layout_runs.hpp"
#include "device/layout/tests/on_device.hpp"

namespace mlacheck::layout::test {
namespace {

// Lengths around one 16-token block, a long request and one just past a power of two.
const std::vector<int> kKvLens{1, 2, 15, 16, 17, 1000, 4097};

// Only the block table matters here: one head and a narrow latent keep the inputs small.
MlaDecodeProblem expansion_problem(int block_size, std::vector<int> kv_lens) {
  MlaDecodeProblem p;
  p.name = "expand_bs" + std::to_string(block_size);
  p.total_heads = 1;
  p.kv_lora_rank = 16;
  p.rope_dim = 0;
  p.q_lens.assign(kv_lens.size(), 1);
  p.kv_lens = std::move(kv_lens);
  p.block_size = block_size;
  return with_defaults(p);
}

void expect_expansion_matches(const MlaDecodeProblem& p) {
  const MlaDecodeInputs in = make_inputs(p);
  const PageIndices expected = expand_page_indices(p, in);
  const ExpandRun run = run_expand_page_indices(p, in);
  EXPECT_TRUE(bitwise_equal(std::span<const std::int32_t>(expected.kv_indptr),
                            std::span<const std::int32_t>(run.kv_indptr),
                            [](std::size_t i) { return "kv_indptr[" + std::to_string(i) + "]"; }));
  const auto where = [&](std::size_t i) {
    const auto request = std::upper_bound(expected.kv_indptr.begin(), expected.kv_indptr.end(), static_cast<int>(i)) -
                         expected.kv_indptr.begin() - 1;
    return "request " + std::to_string(request) + " position " +
           std::to_string(static_cast<int>(i) - expected.kv_indptr[static_cast<std::size_t>(request)]);
  };
  EXPECT_TRUE(bitwise_equal(std::span<const std::int32_t>(expected.kv_indices),
                            std::span<const std::int32_t>(run.kv_indices), where));
  EXPECT_TRUE(run.canaries.intact()) << run.canaries.describe();
}

class ExpandPageIndices : public OnDevice<testing::TestWithParam<int>> {};

TEST_P(ExpandPageIndices, MatchesHostTwinForEveryKvLen) {
  expect_expansion_matches(expansion_problem(GetParam(), kKvLens));
}

// Block sizes of the issue (1, 7, 16, 64, 256) and past 256: one above and a large power of two.
INSTANTIATE_TEST_SUITE_P(BlockSizes, ExpandPageIndices, testing::Values(1, 7, 16, 64, 256, 257, 1024),
                         [](const testing::TestParamInfo<int>& param_info) {
                           return "bs" + std::to_string(param_info.param);
                         });

using ExpandPageIndicesBatch = OnDevice<>;

// More requests than the prefix-sum block scans in one chunk (256), with uneven lengths.
TEST_F(ExpandPageIndicesBatch, ManyRequestsAcrossScanChunks) {
  std::vector<int> kv_lens(1000);
  for (std::size_t i = 0; i < kv_lens.size(); ++i) kv_lens[i] = static_cast<int>(i * 37 % 61) + 1;
  expect_expansion_matches(expansion_problem(16, kv_lens));
}

// Padded requests (kv_len 0, table rows all -1) between real ones: no slot for them, nothing of
// their rows read, and the prefix sums step over them.
TEST_F(ExpandPageIndicesBatch, PaddedRequestsTakeNoSlots) {
  expect_expansion_matches(expansion_problem(16, {0, 17, 0, 0, 1000, 0}));
  expect_expansion_matches(expansion_problem(1, {5, 0}));
}

// More requests than a grid has rows (65535): the last ones come from the kernel's request loop.
TEST_F(ExpandPageIndicesBatch, MoreRequestsThanGridRows) {
  std::vector<int> kv_lens(65536);
  for (std::size_t i = 0; i < kv_lens.size(); ++i) kv_lens[i] = static_cast<int>(i % 3) + 1;
  expect_expansion_matches(expansion_problem(2, kv_lens));
}

// The page form (fault kernel-ignores-page-size, UPSTREAM R8): page counts and one block id per
// page against the host twin; the token-sized kv_indices keeps its poison past the pages.
TEST_P(ExpandPageIndices, PageFormMatchesHostTwin) {
  const MlaDecodeProblem p = expansion_problem(GetParam(), kKvLens);
  const MlaDecodeInputs in = make_inputs(p);
  const PageIndices expected = page_form_indices(p, in);
  const ExpandRun run = run_expand_page_indices(p, in, KvIndexForm::pages);
  EXPECT_TRUE(bitwise_equal(std::span<const std::int32_t>(expected.kv_indptr),
                            std::span<const std::int32_t>(run.kv_indptr),
                            [](std::size_t i) { return "kv_indptr[" + std::to_string(i) + "]"; }));
  const std::span<const std::int32_t> written(run.kv_indices.data(), expected.kv_indices.size());
  EXPECT_TRUE(bitwise_equal(std::span<const std::int32_t>(expected.kv_indices), written,
                            [](std::size_t i) { return "kv_indices[" + std::to_string(i) + "]"; }));
  for (std::size_t i = expected.kv_indices.size(); i < run.kv_indices.size(); ++i) {
    ASSERT_EQ(static_cast<std::uint32_t>(run.kv_indices[i]), 0x7FFFFFFFu) << "kv_indices[" << i << "] written";
  }
  EXPECT_TRUE(run.canaries.intact()) << run.canaries.describe();
}

class LengthsToIndptr : public OnDevice<testing::TestWithParam<int>> {};

TEST_P(LengthsToIndptr, MatchesHostPrefixSums) {
  std::vector<std::int32_t> lengths(static_cast<std::size_t>(GetParam()));
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int32_t>(i * 7919 % 4097);
  std::vector<std::int32_t> expected(lengths.size() + 1, 0);
  std::inclusive_scan(lengths.begin(), lengths.end(), expected.begin() + 1);
  const IndptrRun run = run_lengths_to_indptr(lengths);
  EXPECT_TRUE(bitwise_equal(std::span<const std::int32_t>(expected), std::span<const std::int32_t>(run.indptr),
                            [](std::size_t i) { return "indptr[" + std::to_string(i) + "]"; }));
  EXPECT_TRUE(run.canaries.intact()) << run.canaries.describe();
}

TEST_P(LengthsToIndptr, CountsPagesOfAUnit) {
  constexpr int kUnit = 16;
  std::vector<std::int32_t> lengths(static_cast<std::size_t>(GetParam()));
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int32_t>(i * 7919 % 4097);
  std::vector<std::int32_t> expected(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) expected[i + 1] = expected[i] + (lengths[i] + kUnit - 1) / kUnit;
  const IndptrRun run = run_lengths_to_indptr(lengths, kUnit);
  EXPECT_TRUE(bitwise_equal(std::span<const std::int32_t>(expected), std::span<const std::int32_t>(run.indptr),
                            [](std::size_t i) { return "indptr[" + std::to_string(i) + "]"; }));
  EXPECT_TRUE(run.canaries.intact()) << run.canaries.describe();
}

// Empty, one, around the 256-wide scan chunk, and the largest batch core allows.
INSTANTIATE_TEST_SUITE_P(Counts, LengthsToIndptr, testing::Values(0, 1, 255, 256, 257, 1000, 65536),
                         [](const testing::TestParamInfo<int>& param_info) {
                           return "n" + std::to_string(param_info.param);
                         });

}  // namespace
}  // namespace mlacheck::layout::test
