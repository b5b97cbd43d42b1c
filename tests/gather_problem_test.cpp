// Descriptor validation, addressing and repro strings of kv_gather.
#include "core/gather_problem.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "tests/rejected_field.hpp"

namespace mlacheck {
namespace {

KvGatherProblem qwen35_hybrid(CacheLayout layout, bool interleaved) {
  KvGatherProblem p;
  p.name = "qwen35";
  p.layout = layout;
  p.interleaved = interleaved;
  p.num_kv_heads = 2;
  p.head_size = 256;
  p.block_size = 16;
  p.kv_lens = {33, 1, 16};
  return with_defaults(p);
}

// Every (K/V, block, head, token, channel) must map to its own address inside the pool.
void expect_injective(const KvGatherProblem& p) {
  std::set<std::int64_t> seen;
  for (int kv = 0; kv < 2; ++kv)
    for (int b = 0; b < p.num_blocks; ++b)
      for (int h = 0; h < p.num_kv_heads; ++h)
        for (int t = 0; t < p.block_size; ++t)
          for (int c = 0; c < p.head_size; ++c) {
            const auto off = cache_offset(p, kv == 1, b, h, t, c);
            ASSERT_GE(off, 0);
            ASSERT_LT(off, cache_elements(p));
            ASSERT_TRUE(seen.insert(off).second) << "address " << off << " reused";
          }
}

TEST(GatherProblem, InterleavedStridesFollowUpstream) {
  const auto p = qwen35_hybrid(CacheLayout::nhd, true);
  const std::int64_t hidden = 16 * 2 * 256;
  EXPECT_EQ(p.block_stride, 2 * hidden);
  EXPECT_EQ(p.kv_stride, hidden);
  EXPECT_EQ(cache_offset(p, false, 3, 0, 0, 0), 6 * hidden);
  EXPECT_EQ(cache_offset(p, true, 3, 0, 0, 0), 7 * hidden);
  EXPECT_NO_THROW(validate(p));
  expect_injective(p);
}

TEST(GatherProblem, ShuffleAddressingFollowsUpstream) {
  const auto p = qwen35_hybrid(CacheLayout::shuffle, false);
  const int x = 8;  // bf16: 16 bytes / 2
  ASSERT_EQ(shuffle_x(p), x);
  // Within one block of one head (P = block_size, D = head_size):
  //   K (slot, c) at slot*x + (c/x)*P*x + c%x; V at (slot/x)*D*x + slot%x + c*x.
  EXPECT_EQ(cache_offset(p, false, 0, 0, 5, 19), 5 * x + (19 / x) * 16 * x + 19 % x);
  EXPECT_EQ(cache_offset(p, true, 0, 0, 13, 19) - p.kv_stride, (13 / x) * 256 * x + 13 % x + 19 * x);
  EXPECT_NO_THROW(validate(p));
  expect_injective(p);
  expect_injective(qwen35_hybrid(CacheLayout::shuffle, true));
}

TEST(GatherProblem, PaddedStridesAreValid) {
  auto p = qwen35_hybrid(CacheLayout::nhd, false);
  p.head_stride = 300;  // 44 elements of padding after each head
  p.token_stride = 700;
  p.block_stride = 16 * 700 + 5;
  p.kv_stride = p.block_stride * p.num_blocks + 64;
  EXPECT_NO_THROW(validate(p));
  expect_injective(p);
}

TEST(GatherProblem, OneKvHeadDenseLayoutIsValid) {
  // One head: head_stride equals token_stride, yet no two elements share an address.
  auto p = qwen35_hybrid(CacheLayout::nhd, false);
  p.num_kv_heads = 1;
  p.head_size = 64;
  p.head_stride = p.token_stride = p.block_stride = p.kv_stride = 0;
  p = with_defaults(p);
  EXPECT_NO_THROW(validate(p));
  expect_injective(p);
}

TEST(GatherProblem, ValidationNamesTheField) {
  auto base = qwen35_hybrid(CacheLayout::nhd, false);
  auto p = base;
  p.head_stride = -256;
  EXPECT_EQ(rejected_field(p), "head_stride");
  p = base;
  p.head_stride = 128;  // heads overlap
  EXPECT_EQ(rejected_field(p), "head_stride");
  p = base;
  p.kv_stride = p.block_stride;  // V lands on block 1 of K, and the flag says contiguous
  EXPECT_NE(rejected_field(p), "");
  p = base;
  p.interleaved = true;  // flag without interleaved strides
  EXPECT_EQ(rejected_field(p), "interleaved");
  p = qwen35_hybrid(CacheLayout::shuffle, false);
  p.block_size = 12;  // not a multiple of x
  p.num_blocks = 0;
  p.head_stride = 0;
  p.block_stride = 0;
  p.kv_stride = 0;
  EXPECT_EQ(rejected_field(with_defaults(p)), "bs");
  p = base;
  p.out_dtype = DType::f16;  // bf16 cache cannot convert
  EXPECT_EQ(rejected_field(p), "out_dtype");
  p = base;
  p.cache_dtype = DType::fp8_e4m3fnuz;
  p.out_dtype = DType::bf16;
  p.k_scale = 0.25f;
  EXPECT_EQ(rejected_field(p), "");
  p.out_dtype = DType::fp8_e4m3fnuz;  // no dequantisation, so no scale
  EXPECT_EQ(rejected_field(p), "k_scale");
}

TEST(GatherProblem, ReproRoundTrips) {
  for (auto layout : {CacheLayout::nhd, CacheLayout::shuffle}) {
    for (bool inter : {false, true}) {
      auto p = qwen35_hybrid(layout, inter);
      p.cache_dtype = DType::fp8_e4m3fn;
      p.out_dtype = DType::bf16;
      p.v_scale = 0.03125f;
      p = with_defaults(KvGatherProblem{p});
      const auto line = to_repro(p);
      EXPECT_EQ(parse_kv_gather(line), p) << line;
    }
  }
  EXPECT_THROW(parse_kv_gather("kv_gather:layout=nhwc"), ReproParseError);
  EXPECT_THROW(parse_kv_gather("kv_gather:head_stride=-4"), InvalidProblem);
}

}  // namespace
}  // namespace mlacheck
