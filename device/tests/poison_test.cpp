#include "device/platform/poison.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace mlacheck {
namespace {

bool is_nan_bf16(std::uint16_t bits) {
  return std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16));
}

bool is_nan_fp16(std::uint16_t bits) { return (bits & 0x7C00u) == 0x7C00u && (bits & 0x03FFu) != 0; }

TEST(Poison, PatternsAreNanInEveryOutputType) {
  EXPECT_TRUE(is_nan_bf16(kPoison16));
  EXPECT_TRUE(is_nan_fp16(kPoison16));
  EXPECT_TRUE(std::isnan(std::bit_cast<float>(kPoison32)));
}

TEST(Poison, PatternsDifferFromTheNansArithmeticProduces) {
  for (const std::uint16_t canonical :
       {std::uint16_t{0x7FC0}, std::uint16_t{0xFFC0}, std::uint16_t{0x7E00}, std::uint16_t{0xFE00}}) {
    EXPECT_NE(kPoison16, canonical);
  }
  EXPECT_NE(kPoison32, std::bit_cast<std::uint32_t>(std::numeric_limits<float>::quiet_NaN()));
  EXPECT_NE(kPoison32, std::bit_cast<std::uint32_t>(-std::numeric_limits<float>::quiet_NaN()));
}

TEST(Poison, CountsOnlyElementsStillHoldingThePattern) {
  const float poison = std::bit_cast<float>(kPoison32);
  const std::vector<float> values{1.0f, poison, std::numeric_limits<float>::quiet_NaN(), poison};
  EXPECT_EQ(count_poisoned(std::span<const float>(values)), 2u);

  const std::vector<std::uint16_t> halves{kPoison16, std::uint16_t{0x7FC0}, std::uint16_t{0x3C00}};
  EXPECT_EQ(count_poisoned(std::span<const std::uint16_t>(halves)), 1u);
}

}  // namespace
}  // namespace mlacheck
