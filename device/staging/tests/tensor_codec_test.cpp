#include "device/staging/tensor_codec.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "core/dtype_convert.hpp"

namespace mlacheck {
namespace {

constexpr DType kAll[] = {DType::f32, DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz};

TEST(TensorCodec, DecodingEncodedValuesGivesThemBackBitForBit) {
  for (DType t : kAll) {
    const std::vector<float> values{round_to(t, 1.0f), round_to(t, -0.3f), round_to(t, 0.0f), round_to(t, 7.25f),
                                    std::numeric_limits<float>::quiet_NaN()};
    const std::vector<std::byte> bytes = encode_tensor(t, values);
    ASSERT_EQ(bytes.size(), values.size() * storage_bytes(t)) << to_string(t);
    const DecodedTensor back = decode_tensor(t, bytes);
    ASSERT_EQ(back.values.size(), values.size());
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
      EXPECT_EQ(back.values[i], values[i]) << to_string(t) << " element " << i;
      EXPECT_EQ(back.unwritten[i], 0) << to_string(t) << " element " << i;
    }
    EXPECT_TRUE(std::isnan(back.values.back())) << to_string(t);
    // 16- and 32-bit poisons differ from the NaN arithmetic produces; fp8 has too few NaN codes
    // (fnuz has one) for that, so there a NaN output reads as unwritten -- a failure either way.
    if (!is_fp8(t)) {
      EXPECT_EQ(back.unwritten.back(), 0) << to_string(t) << ": an encoded NaN is not the poison";
    }
  }
}

// A tensor of several million elements is coded in slices on several threads: every byte must be
// the one-element codec's, whatever the split, including NaN, infinities, subnormals and values
// between codes (which the codec rounds).
TEST(TensorCodec, ALargeTensorCodesElementByElementAsOneValueDoes) {
  std::vector<float> values(std::size_t{3} << 20 | 12345);
  std::uint32_t bits = 0x12345678u;
  for (float& v : values) {
    bits = bits * 1664525u + 1013904223u;  // every bit pattern class: NaN, inf, subnormal, normal
    v = bits_float(bits);
  }
  for (DType t : kAll) {
    const std::vector<std::byte> bytes = encode_tensor(t, values);
    const std::size_t width = storage_bytes(t);
    ASSERT_EQ(bytes.size(), values.size() * width);
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::uint32_t code = 0;
      std::memcpy(&code, bytes.data() + i * width, width);
      ASSERT_EQ(code, encode(t, values[i])) << to_string(t) << " element " << i;
    }
    const DecodedTensor back = decode_tensor(t, bytes);
    ASSERT_EQ(back.values.size(), values.size());
    const std::uint32_t poison = poison_code(t);
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::uint32_t code = 0;
      std::memcpy(&code, bytes.data() + i * width, width);
      const float expected = decode(t, code);
      ASSERT_EQ(float_bits(back.values[i]), float_bits(expected)) << to_string(t) << " element " << i;
      ASSERT_EQ(back.unwritten[i], code == poison ? 1 : 0) << to_string(t) << " element " << i;
    }
  }
}

TEST(TensorCodec, ThePoisonWordDecodesAsAnUnwrittenNan) {
  for (DType t : kAll) {
    const std::uint32_t word = poison_word(t);
    std::vector<std::byte> bytes(4 * storage_bytes(t));
    for (std::size_t i = 0; i < bytes.size(); i += 4) std::memcpy(bytes.data() + i, &word, 4);
    const DecodedTensor back = decode_tensor(t, bytes);
    for (std::size_t i = 0; i < back.values.size(); ++i) {
      EXPECT_EQ(back.unwritten[i], 1) << to_string(t);
      EXPECT_TRUE(std::isnan(back.values[i])) << to_string(t);
    }
  }
}

TEST(TensorCodec, NansAKernelWritesDecodeAsWrittenNans) {
  // NVIDIA's canonical NaNs (cvt.rn.bf16.f32 / cvt.rn.f16.f32 write 0x7FFF, its arithmetic
  // 0x7FFFFFFF), AMD's and PyTorch's: a kernel's 0/0 is a NaN it wrote, never "unwritten".
  const std::vector<std::pair<DType, std::uint32_t>> written = {
      {DType::bf16, 0x7FFF}, {DType::bf16, 0x7FC0}, {DType::bf16, 0xFFC0}, {DType::f16, 0x7FFF},
      {DType::f16, 0x7E00},  {DType::f16, 0xFE00},  {DType::f32, 0x7FFFFFFF}, {DType::f32, 0x7FC00000},
      {DType::f32, 0xFFC00000}};
  for (const auto& [t, code] : written) {
    std::vector<std::byte> bytes(storage_bytes(t));
    std::memcpy(bytes.data(), &code, bytes.size());
    const DecodedTensor back = decode_tensor(t, bytes);
    EXPECT_TRUE(std::isnan(back.values[0])) << to_string(t) << " " << std::hex << code;
    EXPECT_EQ(back.unwritten[0], 0) << to_string(t) << " " << std::hex << code;
  }
}

TEST(TensorCodec, RefusesAPartialElement) {
  const std::vector<std::byte> three(3);
  EXPECT_THROW(decode_tensor(DType::bf16, three), std::invalid_argument);
}

}  // namespace
}  // namespace mlacheck
