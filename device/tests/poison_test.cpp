// Counting what still holds the poison (device/platform/poison.hpp): bitwise, so a computed NaN
// of the same type is not counted. The codes themselves are pinned by tests/poison_codes_test.cpp.
#include "device/platform/poison.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace mlacheck {
namespace {

TEST(Poison, SixteenBitCodesFollowTheOutputType) {
  EXPECT_EQ(poison16(DType::bf16), kPoisonBf16);
  EXPECT_EQ(poison16(DType::f16), kPoisonF16);
  EXPECT_NE(kPoisonBf16, kPoisonF16);
}

TEST(Poison, CountsOnlyElementsStillHoldingTheCode) {
  const float poison = std::bit_cast<float>(kPoisonF32);
  const float canonical = std::bit_cast<float>(0x7FFFFFFFu);  // NVIDIA's computed NaN
  const std::vector<float> values{1.0f, poison, std::numeric_limits<float>::quiet_NaN(), canonical, poison};
  EXPECT_EQ(count_poisoned(std::span<const float>(values), kPoisonF32), 2u);

  const std::vector<std::uint16_t> halves{kPoisonBf16, 0x7FC0, 0x7FFF, 0x3C00, kPoisonF16};
  EXPECT_EQ(count_poisoned(std::span<const std::uint16_t>(halves), poison16(DType::bf16)), 1u);
  EXPECT_EQ(count_poisoned(std::span<const std::uint16_t>(halves), poison16(DType::f16)), 1u);
}

}  // namespace
}  // namespace mlacheck
