// Seeded fills: a repro string replays a case only if the same (seed, tensor, index) gives the same
// value forever, however the tensor is sliced or threaded.
#include "core/fill.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <set>
#include <vector>

namespace mlacheck {
namespace {

constexpr DType kAllTypes[] = {DType::f32, DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz};

std::vector<float> fill(std::size_t n, DType t, FillMode mode, std::uint64_t seed, const char* name,
                        float range = 1.0f) {
  std::vector<float> v(n);
  fill_tensor(v, t, mode, seed, name, range);
  return v;
}

TEST(SplitMix64, MatchesTheReferenceSequence) {
  // splitmix64 as published (Steele, Lea, Flood 2014; Vigna's splitmix64.c), state 0.
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(rng.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(rng.next(), 0x06C45D188009454Full);
}

TEST(SplitMix64, DrawsStayInRange) {
  SplitMix64 rng(42);
  for (int i = 0; i < 10000; ++i) {
    const float u = rng.uniform_pm1();
    ASSERT_GE(u, -1.0f);
    ASSERT_LT(u, 1.0f);
    ASSERT_LT(rng.below(7), 7u);
  }
}

TEST(Fill, PinnedValuesKeepOldReprosReplayable) {
  // Changing these changes the data behind every recorded repro string.
  EXPECT_EQ(fill(4, DType::f32, FillMode::random, 1, "q"),
            (std::vector<float>{0x1.3fa4a8p-2f, -0x1.9e0dd8p-2f, 0x1.74be5p-1f, -0x1.ce90f4p-1f}));
  EXPECT_EQ(fill(4, DType::bf16, FillMode::random, 1, "kv"),
            (std::vector<float>{0x1.72p-1f, -0x1.96p-1f, -0x1.0ep-1f, 0x1.3p-1f}));
  EXPECT_EQ(fill(4, DType::bf16, FillMode::exact, 1, "kv"), (std::vector<float>{2.0f, 2.0f, -2.0f, 1.0f}));
}

TEST(Fill, DependsOnSeedAndTensorName) {
  const auto a = fill(1000, DType::bf16, FillMode::random, 7, "q");
  EXPECT_EQ(a, fill(1000, DType::bf16, FillMode::random, 7, "q"));
  EXPECT_NE(a, fill(1000, DType::bf16, FillMode::random, 8, "q"));
  EXPECT_NE(a, fill(1000, DType::bf16, FillMode::random, 7, "kv"));
  EXPECT_NE(tensor_seed(7, "q", 0), tensor_seed(7, "q", 1));
}

TEST(Fill, ChunksAreNotCopiesOfEachOther) {
  const auto v = fill(2 * kFillChunk, DType::f32, FillMode::random, 3, "kv");
  EXPECT_FALSE(std::equal(v.begin(), v.begin() + kFillChunk, v.begin() + kFillChunk));
}

TEST(Fill, AnySliceEqualsTheSameRangeOfTheWholeTensor) {
  const std::size_t n = 3 * kFillChunk + 123;
  for (FillMode mode : {FillMode::random, FillMode::exact}) {
    const auto whole = fill(n, DType::bf16, mode, 11, "kv", 0.5f);
    const std::pair<std::size_t, std::size_t> slices[] = {
        {1, 2}, {0, kFillChunk}, {kFillChunk - 1, kFillChunk + 1}, {17, 2 * kFillChunk + 5}, {2 * kFillChunk + 9, n}};
    for (auto [a, b] : slices) {
      std::vector<float> part(b - a);
      fill_tensor(part, DType::bf16, mode, 11, "kv", 0.5f, a);
      ASSERT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + static_cast<std::ptrdiff_t>(a)))
          << "slice [" << a << ", " << b << ")";
    }
  }
}

TEST(Fill, RandomValuesAreValuesOfTheDtypeWithinRange) {
  for (DType t : kAllTypes) {
    const auto v = fill(20000, t, FillMode::random, 5, "q");
    for (float x : v) {
      ASSERT_EQ(round_to(t, x), x) << to_string(t);
      ASSERT_LE(std::abs(x), 1.0f) << to_string(t);
    }
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    EXPECT_LT(*lo, -0.9f) << to_string(t);
    EXPECT_GT(*hi, 0.9f) << to_string(t);
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    EXPECT_LT(std::abs(mean), 0.03) << to_string(t);
  }
}

TEST(Fill, RangeScalesTheValues) {
  const auto v = fill(10000, DType::fp8_e4m3fn, FillMode::random, 5, "kv", 64.0f);
  EXPECT_GT(*std::max_element(v.begin(), v.end()), 50.0f);
  EXPECT_LE(*std::max_element(v.begin(), v.end()), 64.0f);
}

TEST(Fill, ExactModeGivesEverySmallIntegerAndNothingElse) {
  for (DType t : kAllTypes) {
    const auto v = fill(5000, t, FillMode::exact, 9, "kv", 100.0f);
    std::set<float> seen(v.begin(), v.end());
    EXPECT_EQ(seen, (std::set<float>{-2.0f, -1.0f, 0.0f, 1.0f, 2.0f})) << to_string(t);
    const auto zeros = std::count(v.begin(), v.end(), 0.0f);
    EXPECT_GT(zeros, 800);  // about a fifth
    EXPECT_LT(zeros, 1200);
  }
}

TEST(Fill, ElementZeroIsNeverZero) {
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    for (DType t : kAllTypes) {
      ASSERT_NE(fill(1, t, FillMode::exact, seed, "q")[0], 0.0f) << seed;
      // A range below every fp8 value's half-spacing rounds everything to zero but element 0.
      ASSERT_NE(fill(3, t, FillMode::random, seed, "q", 1e-3f)[0], 0.0f) << seed << " " << to_string(t);
    }
  }
}

TEST(Fill, PermutationIsValidAndSeeded) {
  for (std::size_t n : {0u, 1u, 2u, 17u, 1000u}) {
    std::vector<std::int32_t> p(n);
    fill_permutation(p, 3, "block_table");
    std::vector<std::int32_t> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::int32_t> iota(n);
    std::iota(iota.begin(), iota.end(), 0);
    EXPECT_EQ(sorted, iota) << n;
  }
  std::vector<std::int32_t> a(1000), b(1000), c(1000);
  fill_permutation(a, 3, "block_table");
  fill_permutation(b, 3, "block_table");
  fill_permutation(c, 4, "block_table");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::vector<std::int32_t> iota(1000);
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_NE(a, iota);
}

}  // namespace
}  // namespace mlacheck
