// The poison codes (core/poison_codes.hpp) against every way a kernel writes a NaN: the project's
// own conversions (dtype_convert.hpp, the code the kernels run) over every f32 NaN, the vendors'
// NaN rules (modelled below, sources in docs/tolerance.md, Poison codes) over every quiet f32 NaN
// and over the f32 poison itself (a kernel that copies an unwritten f32 element), widenings of
// every 16-bit and fp8 code, and host arithmetic.
#include "core/poison_codes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/dtype_convert.hpp"

namespace mlacheck {
namespace {

constexpr std::uint32_t kQuietF32 = 0x00400000u;

// Calls `f` with every f32 NaN bit pattern of both signs; quiet_only: those with bit 22 set.
void for_each_f32_nan(bool quiet_only, const std::function<void(std::uint32_t)>& f) {
  for (std::uint32_t sign : {0u, 0x80000000u}) {
    for (std::uint32_t payload = quiet_only ? kQuietF32 : 1u; payload <= 0x7FFFFFu; ++payload) {
      f(sign | 0x7F800000u | payload);
    }
  }
}

// How vendors' f32 -> 16-bit conversions write a NaN (docs/tolerance.md, Poison codes).
struct NanRule {
  std::string name;
  DType to;
  std::function<std::uint16_t(std::uint32_t)> convert;
};

std::vector<NanRule> vendor_nan_rules() {
  return {
      // cuda_bf16.hpp __internal_float2bfloat16; PTX cvt.rn.bf16.f32: the canonical NaN.
      {"NVIDIA __float2bfloat16", DType::bf16, [](std::uint32_t) -> std::uint16_t { return 0x7FFF; }},
      // cuda_fp16.hpp __internal_float2half; PTX cvt.rn.f16.f32: the canonical NaN.
      {"NVIDIA __float2half", DType::f16, [](std::uint32_t) -> std::uint16_t { return 0x7FFF; }},
      // c10/util/BFloat16.h round_to_nearest_even.
      {"PyTorch BFloat16", DType::bf16, [](std::uint32_t) -> std::uint16_t { return 0x7FC0; }},
      // c10/util/Half.h fp16_ieee_from_fp32_value: 0x7E00 with the input's sign.
      {"PyTorch Half", DType::f16,
       [](std::uint32_t b) { return static_cast<std::uint16_t>(((b >> 16) & 0x8000u) | 0x7E00u); }},
      // rocBLAS float_to_bfloat16, the older hip_bfloat16.h, MIOpen-style helpers: truncate, setting
      // the lowest bit when the dropped bits held the payload, so a signalling NaN stays signalling.
      {"AMD rocBLAS bf16", DType::bf16,
       [](std::uint32_t b) { return static_cast<std::uint16_t>(((b & 0xFFFFu) != 0 ? b | 0x10000u : b) >> 16); }},
      // A rounding add with no NaN check (bias 0x7FFF plus the kept lsb), as bit-trick kernels do.
      {"rounding add", DType::bf16,
       [](std::uint32_t b) { return static_cast<std::uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16); }},
      // compiler-rt __truncsfhf2 (x86 _Float16, HIP host), AMD v_cvt_f16_f32, x86 F16C: quiet bit set,
      // top payload bits kept (compiler-rt __truncsfbf2, behind amd_hip_bf16.h's __float2bfloat16 on
      // the host, is the bf16 twin: the project's own codec, checked above).
      {"quieting truncation to f16", DType::f16,
       [](std::uint32_t b) {
         return static_cast<std::uint16_t>(((b >> 16) & 0x8000u) | 0x7E00u | ((b & 0x7FFFFFu) >> 13));
       }},
      // NumPy npy_floatbits_to_halfbits: payload kept as it is (a signalling NaN stays one), 0x7C01
      // when the kept bits are zero.
      {"NumPy float16", DType::f16,
       [](std::uint32_t b) {
         std::uint16_t code = static_cast<std::uint16_t>(0x7C00u + ((b & 0x7FFFFFu) >> 13));
         if (code == 0x7C00u) ++code;
         return static_cast<std::uint16_t>(((b >> 16) & 0x8000u) | code);
       }},
  };
}

TEST(PoisonCodes, AreNansOfTheirTypes) {
  for (DType t : {DType::f32, DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
    EXPECT_TRUE(std::isnan(decode(t, poison_code(t)))) << to_string(t);
  }
  EXPECT_TRUE(std::isnan(bits_float(kPoisonIndex))) << "untyped scratch read as f32 is NaN too";
}

TEST(PoisonCodes, AreSignallingNansWhereTheTypeHasThem) {
  EXPECT_EQ(kPoisonF32 & kQuietF32, 0u);
  EXPECT_EQ(kPoisonBf16 & 0x40u, 0u);
  EXPECT_EQ(kPoisonF16 & 0x200u, 0u);
}

TEST(PoisonCodes, WordsRepeatTheCode) {
  EXPECT_EQ(poison_word(DType::f32), 0x7FA5A5A5u);
  EXPECT_EQ(poison_word(DType::bf16), 0x7F9A7F9Au);
  EXPECT_EQ(poison_word(DType::f16), 0x7CD27CD2u);
  EXPECT_EQ(poison_word(DType::fp8_e4m3fn), 0x7F7F7F7Fu);
  EXPECT_EQ(poison_word(DType::fp8_e4m3fnuz), 0x80808080u);
}

TEST(PoisonCodes, NoF32NanConvertsToA16BitPoisonThroughTheProjectsCodecs) {
  int nans = 0;
  for_each_f32_nan(false, [&](std::uint32_t bits) {
    const float v = bits_float(bits);
    const std::uint32_t bf16 = encode_float<Bf16Format>(v), f16 = encode_float<F16Format>(v);
    if (bf16 == kPoisonBf16 || f16 == kPoisonF16) {
      ADD_FAILURE() << std::hex << "f32 0x" << bits << " -> bf16 0x" << bf16 << ", f16 0x" << f16;
    }
    ++nans;
  });
  EXPECT_EQ(nans, 2 * 0x7FFFFF);
}

TEST(PoisonCodes, NoVendorRuleWritesA16BitPoisonFromAQuietNanOrTheF32Poison) {
  for (const NanRule& rule : vendor_nan_rules()) {
    const std::uint16_t poison = static_cast<std::uint16_t>(poison_code(rule.to));
    int hits = 0;
    for_each_f32_nan(true, [&](std::uint32_t bits) { hits += rule.convert(bits) == poison ? 1 : 0; });
    EXPECT_EQ(hits, 0) << rule.name << " writes the " << to_string(rule.to) << " poison from a quiet NaN";
    EXPECT_NE(rule.convert(kPoisonF32), poison)
        << rule.name << ": a kernel copying unwritten f32 into " << to_string(rule.to) << " would look unwritten";
  }
}

TEST(PoisonCodes, TheOldCodesFailTheVendorRules) {
  // Why the codes changed: NVIDIA's canonical NaN was the 16-bit poison (a kernel's 0/0 read as
  // "never written"), and its f32 canonical NaN the f32 poison.
  bool caught = false;
  for (const NanRule& rule : vendor_nan_rules()) caught = caught || rule.convert(0x7FC00000u) == 0x7FFF;
  EXPECT_TRUE(caught);
  EXPECT_NE(kPoisonF32, 0x7FFFFFFFu);
}

TEST(PoisonCodes, NoWideningWritesTheF32Poison) {
  for (std::uint32_t code = 0; code <= 0xFFFFu; ++code) {
    ASSERT_NE(float_bits(decode(DType::bf16, code)), kPoisonF32) << code;
    ASSERT_NE(float_bits(decode(DType::f16, code)), kPoisonF32) << code;
    // bf16 -> f32 is a shift and f16 -> f32 keeps the payload's top bits: the low bits stay zero.
    ASSERT_NE(code << 16, kPoisonF32);
  }
  for (std::uint32_t code = 0; code <= 0xFFu; ++code) {
    ASSERT_NE(float_bits(decode(DType::fp8_e4m3fn, code)), kPoisonF32) << code;
    ASSERT_NE(float_bits(decode(DType::fp8_e4m3fnuz, code)), kPoisonF32) << code;
  }
}

TEST(PoisonCodes, HostArithmeticQuietsEveryNan) {
  volatile float zero = 0.0f, inf = INFINITY, poison = bits_float(kPoisonF32);
  for (const float nan : {zero / zero, inf - inf, poison + 1.0f, poison * zero}) {
    ASSERT_TRUE(std::isnan(nan));
    EXPECT_NE(float_bits(nan), kPoisonF32);
    EXPECT_NE(float_bits(nan) & kQuietF32, 0u) << std::hex << float_bits(nan);
  }
}

}  // namespace
}  // namespace mlacheck
