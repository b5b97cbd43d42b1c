// Pins the bit-exact conversions of core/dtype_convert.hpp (shared with the kernels) and their
// runtime wrappers in core/dtype.hpp: known bit patterns for every rule the header states, then
// exhaustive checks over every code and every rounding midpoint of each format, and a sampled
// comparison with an independent nearest-value search.
#include "core/dtype_convert.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace mlacheck {
namespace {

float f(std::uint32_t bits) { return bits_float(bits); }
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::uint32_t bf16(float v) { return encode_float<Bf16Format>(v); }
std::uint32_t f16(float v) { return encode_float<F16Format>(v); }
std::uint32_t fn(float v) { return encode_float<Fp8E4M3FnFormat>(v); }
std::uint32_t fnuz(float v) { return encode_float<Fp8E4M3FnuzFormat>(v); }

// Bit pattern of a decoded value, so -0.0 and +0.0 differ in assertions.
std::uint32_t decoded_bits(DType t, std::uint32_t code) { return float_bits(decode(t, code)); }

TEST(DtypeConvertBf16, ExactValues) {
  EXPECT_EQ(bf16(1.0f), 0x3F80u);
  EXPECT_EQ(bf16(-2.0f), 0xC000u);
  EXPECT_EQ(bf16(0.15625f), 0x3E20u);
  EXPECT_EQ(bf16(0.0f), 0x0000u);
  EXPECT_EQ(bf16(-0.0f), 0x8000u);
  EXPECT_EQ(decode_float<Bf16Format>(0x3F80u), 1.0f);
  EXPECT_EQ(decode_float<Bf16Format>(0xC0A0u), -5.0f);
}

TEST(DtypeConvertBf16, TiesToEvenBothDirections) {
  EXPECT_EQ(bf16(f(0x3F808000u)), 0x3F80u);  // 1 + 2^-8: between 0x3F80 (even) and 0x3F81: down
  EXPECT_EQ(bf16(f(0x3F818000u)), 0x3F82u);  // between 0x3F81 and 0x3F82 (even): up
  EXPECT_EQ(bf16(f(0x3F807FFFu)), 0x3F80u);  // just below a tie
  EXPECT_EQ(bf16(f(0x3F808001u)), 0x3F81u);  // just above a tie
  EXPECT_EQ(bf16(f(0xBF808000u)), 0xBF80u);
  EXPECT_EQ(bf16(f(0xBF818000u)), 0xBF82u);
}

TEST(DtypeConvertBf16, NaNKeepsSignAndTopPayloadAndIsQuiet) {
  EXPECT_EQ(bf16(kNaN), 0x7FC0u);
  EXPECT_EQ(bf16(-kNaN), 0xFFC0u);
  EXPECT_EQ(bf16(f(0x7F800001u)), 0x7FC0u);  // payload only in dropped bits: still a NaN
  EXPECT_EQ(bf16(f(0x7FA00000u)), 0x7FE0u);  // top payload bit kept, quiet bit set
  EXPECT_EQ(bf16(f(0xFF812345u)), 0xFFC1u);
  EXPECT_TRUE(std::isnan(decode_float<Bf16Format>(0x7FC0u)));
  EXPECT_TRUE(std::isnan(decode_float<Bf16Format>(0x7F81u)));
  EXPECT_EQ(float_bits(decode_float<Bf16Format>(0xFFC1u)), 0xFFC10000u);
}

TEST(DtypeConvertBf16, InfinitiesAndOverflow) {
  EXPECT_EQ(bf16(kInf), 0x7F80u);
  EXPECT_EQ(bf16(-kInf), 0xFF80u);
  EXPECT_EQ(decode_float<Bf16Format>(0x7F80u), kInf);
  EXPECT_EQ(decode_float<Bf16Format>(0xFF80u), -kInf);
  EXPECT_EQ(bf16(f(0x7F7F0000u)), 0x7F7Fu);  // largest finite, 3.3895314e38
  EXPECT_EQ(decode_float<Bf16Format>(0x7F7Fu), 3.3895313892515355e38f);
  EXPECT_EQ(bf16(f(0x7F7F7FFFu)), 0x7F7Fu);  // just under the boundary
  EXPECT_EQ(bf16(f(0x7F7F8000u)), 0x7F80u);  // the tie above it rounds to even: inf
  EXPECT_EQ(bf16(std::numeric_limits<float>::max()), 0x7F80u);
  EXPECT_EQ(bf16(-std::numeric_limits<float>::max()), 0xFF80u);
}

TEST(DtypeConvertBf16, SubnormalsFollowFloat) {
  // bf16 shares float's exponent range: float subnormals round to bf16 subnormals.
  EXPECT_EQ(bf16(f(0x00010000u)), 0x0001u);  // smallest subnormal 2^-133
  EXPECT_EQ(bf16(f(0x00008000u)), 0x0000u);  // 2^-134: tie with zero, to even
  EXPECT_EQ(bf16(f(0x00008001u)), 0x0001u);
  EXPECT_EQ(bf16(f(0x00018000u)), 0x0002u);  // tie between 1 and 2
  EXPECT_EQ(bf16(f(0x00014000u)), 0x0001u);  // between subnormals
  EXPECT_EQ(bf16(f(0x80008000u)), 0x8000u);  // negative tie to zero keeps the sign
  EXPECT_EQ(bf16(f(0x00000001u)), 0x0000u);
  EXPECT_EQ(decode_float<Bf16Format>(0x0001u), 0x1p-133f);
}

TEST(DtypeConvertF16, ExactValues) {
  EXPECT_EQ(f16(1.0f), 0x3C00u);
  EXPECT_EQ(f16(-2.0f), 0xC000u);
  EXPECT_EQ(f16(0.333251953125f), 0x3555u);
  EXPECT_EQ(f16(0.0f), 0x0000u);
  EXPECT_EQ(f16(-0.0f), 0x8000u);
  EXPECT_EQ(decode_float<F16Format>(0x3555u), 0.333251953125f);
  EXPECT_EQ(decode_float<F16Format>(0xC500u), -5.0f);
}

TEST(DtypeConvertF16, TiesToEvenBothDirections) {
  EXPECT_EQ(f16(1.0f + 0x1p-11f), 0x3C00u);      // down to even
  EXPECT_EQ(f16(1.0f + 3 * 0x1p-11f), 0x3C02u);  // up to even
  EXPECT_EQ(f16(std::nextafter(1.0f + 0x1p-11f, 2.0f)), 0x3C01u);
  EXPECT_EQ(f16(std::nextafter(1.0f + 3 * 0x1p-11f, 0.0f)), 0x3C01u);
  EXPECT_EQ(f16(-(1.0f + 0x1p-11f)), 0xBC00u);
  EXPECT_EQ(f16(-(1.0f + 3 * 0x1p-11f)), 0xBC02u);
}

TEST(DtypeConvertF16, NaNKeepsSignAndTopPayloadAndIsQuiet) {
  EXPECT_EQ(f16(kNaN), 0x7E00u);
  EXPECT_EQ(f16(-kNaN), 0xFE00u);
  EXPECT_EQ(f16(f(0x7F800001u)), 0x7E00u);
  EXPECT_EQ(f16(f(0x7FA00000u)), 0x7F00u);
  EXPECT_TRUE(std::isnan(decode_float<F16Format>(0x7C01u)));
  EXPECT_TRUE(std::isnan(decode_float<F16Format>(0xFE00u)));
  EXPECT_EQ(float_bits(decode_float<F16Format>(0x7E00u)), 0x7FC00000u);
}

TEST(DtypeConvertF16, InfinitiesAndOverflow) {
  EXPECT_EQ(f16(kInf), 0x7C00u);
  EXPECT_EQ(f16(-kInf), 0xFC00u);
  EXPECT_EQ(decode_float<F16Format>(0x7C00u), kInf);
  EXPECT_EQ(f16(65504.0f), 0x7BFFu);
  EXPECT_EQ(f16(std::nextafter(65520.0f, 0.0f)), 0x7BFFu);
  EXPECT_EQ(f16(65520.0f), 0x7C00u);  // tie above the largest finite (odd): inf
  EXPECT_EQ(f16(-65520.0f), 0xFC00u);
  EXPECT_EQ(f16(1e6f), 0x7C00u);
  EXPECT_EQ(f16(1e30f), 0x7C00u);  // exponent far beyond the format
}

TEST(DtypeConvertF16, Subnormals) {
  EXPECT_EQ(f16(0x1p-24f), 0x0001u);  // smallest subnormal
  EXPECT_EQ(f16(0x1p-25f), 0x0000u);  // tie with zero
  EXPECT_EQ(f16(std::nextafter(0x1p-25f, 1.0f)), 0x0001u);
  EXPECT_EQ(f16(3 * 0x1p-25f), 0x0002u);  // tie between 1 and 2
  EXPECT_EQ(f16(5 * 0x1p-25f), 0x0002u);  // tie between 2 and 3
  EXPECT_EQ(f16(1.25f * 0x1p-24f), 0x0001u);
  EXPECT_EQ(f16(1023 * 0x1p-24f), 0x03FFu);     // largest subnormal
  EXPECT_EQ(f16(1023.5f * 0x1p-24f), 0x0400u);  // tie into the smallest normal
  EXPECT_EQ(f16(0x1p-14f), 0x0400u);
  EXPECT_EQ(f16(-0x1p-26f), 0x8000u);
  EXPECT_EQ(f16(f(0x00000001u)), 0x0000u);  // float subnormal
  EXPECT_EQ(f16(f(0x80400000u)), 0x8000u);
  EXPECT_EQ(decode_float<F16Format>(0x0001u), 0x1p-24f);
  EXPECT_EQ(decode_float<F16Format>(0x83FFu), -1023 * 0x1p-24f);
}

TEST(DtypeConvertFp8Fn, ExactValues) {
  EXPECT_EQ(fn(1.0f), 0x38u);
  EXPECT_EQ(fn(0.5f), 0x30u);
  EXPECT_EQ(fn(-1.5f), 0xBCu);
  EXPECT_EQ(fn(448.0f), 0x7Eu);
  EXPECT_EQ(fn(-448.0f), 0xFEu);
  EXPECT_EQ(fn(0.0f), 0x00u);
  EXPECT_EQ(fn(-0.0f), 0x80u);
  EXPECT_EQ(decode_float<Fp8E4M3FnFormat>(0x7Eu), 448.0f);
  EXPECT_EQ(decode_float<Fp8E4M3FnFormat>(0x3Au), 1.25f);
  EXPECT_EQ(float_bits(decode_float<Fp8E4M3FnFormat>(0x80u)), 0x80000000u);
}

TEST(DtypeConvertFp8Fn, TiesToEvenBothDirections) {
  EXPECT_EQ(fn(1.0625f), 0x38u);  // between 1 (0x38) and 1.125: down
  EXPECT_EQ(fn(1.1875f), 0x3Au);  // between 1.125 and 1.25 (0x3A): up
  EXPECT_EQ(fn(std::nextafter(1.0625f, 2.0f)), 0x39u);
  EXPECT_EQ(fn(-1.0625f), 0xB8u);
  EXPECT_EQ(fn(-1.1875f), 0xBAu);
}

TEST(DtypeConvertFp8Fn, NaNIs0x7FAndInfinitiesSaturate) {
  EXPECT_EQ(fn(kNaN), 0x7Fu);
  EXPECT_EQ(fn(-kNaN), 0x7Fu);
  EXPECT_EQ(fn(f(0x7F800001u)), 0x7Fu);
  EXPECT_TRUE(std::isnan(decode_float<Fp8E4M3FnFormat>(0x7Fu)));
  EXPECT_TRUE(std::isnan(decode_float<Fp8E4M3FnFormat>(0xFFu)));
  EXPECT_EQ(fn(kInf), 0x7Eu);
  EXPECT_EQ(fn(-kInf), 0xFEu);
}

TEST(DtypeConvertFp8Fn, SaturationAndLargestFinite) {
  EXPECT_EQ(fn(432.0f), 0x7Eu);  // tie between 416 (0x7D) and 448 (0x7E, even)
  EXPECT_EQ(fn(std::nextafter(432.0f, 0.0f)), 0x7Du);
  EXPECT_EQ(fn(464.0f), 0x7Eu);  // the tie above 448 would be the NaN code: stays 448
  EXPECT_EQ(fn(std::nextafter(464.0f, 1e9f)), 0x7Eu);
  EXPECT_EQ(fn(480.0f), 0x7Eu);
  EXPECT_EQ(fn(1e30f), 0x7Eu);
  EXPECT_EQ(fn(-1e30f), 0xFEu);
}

TEST(DtypeConvertFp8Fn, Subnormals) {
  EXPECT_EQ(fn(0x1p-9f), 0x01u);   // smallest subnormal
  EXPECT_EQ(fn(0x1p-10f), 0x00u);  // tie with zero
  EXPECT_EQ(fn(std::nextafter(0x1p-10f, 1.0f)), 0x01u);
  EXPECT_EQ(fn(3 * 0x1p-10f), 0x02u);
  EXPECT_EQ(fn(1.25f * 0x1p-9f), 0x01u);
  EXPECT_EQ(fn(7 * 0x1p-9f), 0x07u);     // largest subnormal
  EXPECT_EQ(fn(7.5f * 0x1p-9f), 0x08u);  // tie into the smallest normal 2^-6
  EXPECT_EQ(fn(-0x1p-10f), 0x80u);       // negative zero exists in fn
  EXPECT_EQ(fn(-0x1p-9f), 0x81u);
  EXPECT_EQ(decode_float<Fp8E4M3FnFormat>(0x01u), 0x1p-9f);
  EXPECT_EQ(decode_float<Fp8E4M3FnFormat>(0x87u), -7 * 0x1p-9f);
}

TEST(DtypeConvertFp8Fnuz, ExactValues) {
  EXPECT_EQ(fnuz(1.0f), 0x40u);
  EXPECT_EQ(fnuz(0.5f), 0x38u);
  EXPECT_EQ(fnuz(-1.5f), 0xC4u);
  EXPECT_EQ(fnuz(240.0f), 0x7Fu);
  EXPECT_EQ(fnuz(-240.0f), 0xFFu);
  EXPECT_EQ(decode_float<Fp8E4M3FnuzFormat>(0x7Fu), 240.0f);
  EXPECT_EQ(decode_float<Fp8E4M3FnuzFormat>(0x42u), 1.25f);
}

TEST(DtypeConvertFp8Fnuz, TiesToEvenBothDirections) {
  EXPECT_EQ(fnuz(1.0625f), 0x40u);
  EXPECT_EQ(fnuz(1.1875f), 0x42u);
  EXPECT_EQ(fnuz(-1.0625f), 0xC0u);
  EXPECT_EQ(fnuz(-1.1875f), 0xC2u);
}

TEST(DtypeConvertFp8Fnuz, NaNIs0x80AndInfinitiesSaturate) {
  EXPECT_EQ(fnuz(kNaN), 0x80u);
  EXPECT_EQ(fnuz(-kNaN), 0x80u);
  EXPECT_TRUE(std::isnan(decode_float<Fp8E4M3FnuzFormat>(0x80u)));
  EXPECT_EQ(fnuz(kInf), 0x7Fu);
  EXPECT_EQ(fnuz(-kInf), 0xFFu);
}

TEST(DtypeConvertFp8Fnuz, SaturationAndLargestFinite) {
  EXPECT_EQ(fnuz(232.0f), 0x7Eu);  // tie between 224 (0x7E, even) and 240 (0x7F)
  EXPECT_EQ(fnuz(std::nextafter(232.0f, 1e9f)), 0x7Fu);
  EXPECT_EQ(fnuz(248.0f), 0x7Fu);  // the tie above the largest finite saturates
  EXPECT_EQ(fnuz(256.0f), 0x7Fu);
  EXPECT_EQ(fnuz(1e30f), 0x7Fu);
  EXPECT_EQ(fnuz(-1e30f), 0xFFu);
}

TEST(DtypeConvertFp8Fnuz, NoNegativeZero) {
  EXPECT_EQ(fnuz(-0.0f), 0x00u);
  EXPECT_EQ(fnuz(-0x1p-11f), 0x00u);  // tie with zero, negative
  EXPECT_EQ(fnuz(-0x1p-30f), 0x00u);
  EXPECT_EQ(fnuz(f(0x80000001u)), 0x00u);  // negative float subnormal
  EXPECT_EQ(fnuz(-0x1p-10f), 0x81u);       // smallest negative subnormal
  EXPECT_EQ(float_bits(decode_float<Fp8E4M3FnuzFormat>(0x00u)), 0x00000000u);
}

TEST(DtypeConvertFp8Fnuz, Subnormals) {
  EXPECT_EQ(fnuz(0x1p-10f), 0x01u);
  EXPECT_EQ(fnuz(0x1p-11f), 0x00u);
  EXPECT_EQ(fnuz(std::nextafter(0x1p-11f, 1.0f)), 0x01u);
  EXPECT_EQ(fnuz(3 * 0x1p-11f), 0x02u);
  EXPECT_EQ(fnuz(7 * 0x1p-10f), 0x07u);
  EXPECT_EQ(fnuz(0x1p-7f), 0x08u);  // smallest normal
  EXPECT_EQ(decode_float<Fp8E4M3FnuzFormat>(0x01u), 0x1p-10f);
}

// --- exhaustive checks over every code of each format ---------------------------------------

struct Format {
  DType type;
  std::uint32_t codes;  // 2^bits
  std::uint32_t sign_bit;
  std::uint32_t max_finite;  // positive code of the largest finite value
  bool has_inf;
  bool has_negative_zero;
};

class EveryFormat : public ::testing::TestWithParam<Format> {};

bool nan_code(DType t, std::uint32_t code) { return std::isnan(decode(t, code)); }

TEST_P(EveryFormat, EveryNonNaNCodeRoundTrips) {
  const Format fm = GetParam();
  int nans = 0;
  for (std::uint32_t code = 0; code < fm.codes; ++code) {
    const float v = decode(fm.type, code);
    if (std::isnan(v)) {
      ++nans;
      EXPECT_TRUE(nan_code(fm.type, encode(fm.type, v))) << std::hex << code;
      continue;
    }
    ASSERT_EQ(encode(fm.type, v), code) << "code 0x" << std::hex << code << " value " << v;
    // Every value of the format is its own nearest value.
    ASSERT_EQ(float_bits(round_to(fm.type, v)), float_bits(v)) << std::hex << code;
  }
  // fn: 0x7F, 0xFF; fnuz: 0x80; bf16/f16: all-ones exponent with a non-zero mantissa.
  const int expected_nans = fm.type == DType::fp8_e4m3fn     ? 2
                            : fm.type == DType::fp8_e4m3fnuz ? 1
                            : fm.type == DType::bf16         ? 2 * 127
                                                             : 2 * 1023;
  EXPECT_EQ(nans, expected_nans);
}

TEST_P(EveryFormat, PositiveCodesAreOrderedAndTopOutAtMaxFinite) {
  const Format fm = GetParam();
  for (std::uint32_t code = 1; code <= fm.max_finite; ++code) {
    ASSERT_LT(decode(fm.type, code - 1), decode(fm.type, code)) << std::hex << code;
  }
  EXPECT_EQ(static_cast<double>(decode(fm.type, fm.max_finite)), max_finite(fm.type));
  // Spacing just above 1 is 2u: the unit roundoff matches the mantissa width.
  const std::uint32_t one = encode(fm.type, 1.0f);
  EXPECT_EQ(static_cast<double>(decode(fm.type, one + 1)) - 1.0, 2.0 * unit_roundoff(fm.type));
}

// Every midpoint between neighbours rounds to the even code, and the floats on either side of it
// to the nearer neighbour; negatives mirror positives (into 0x00 where fnuz has no -0).
TEST_P(EveryFormat, EveryMidpointTiesToEven) {
  const Format fm = GetParam();
  for (std::uint32_t k = 0; k < fm.max_finite; ++k) {
    const float lo = decode(fm.type, k), hi = decode(fm.type, k + 1);
    const float mid = static_cast<float>((static_cast<double>(lo) + hi) / 2.0);
    ASSERT_EQ(static_cast<double>(mid), (static_cast<double>(lo) + hi) / 2.0) << "midpoint not a float";
    const std::uint32_t even = (k % 2 == 0) ? k : k + 1;
    ASSERT_EQ(encode(fm.type, mid), even) << std::hex << k;
    ASSERT_EQ(encode(fm.type, std::nextafter(mid, lo)), k) << std::hex << k;
    ASSERT_EQ(encode(fm.type, std::nextafter(mid, hi)), k + 1) << std::hex << k;
    const std::uint32_t neg = (even == 0 && !fm.has_negative_zero) ? 0u : (fm.sign_bit | even);
    ASSERT_EQ(encode(fm.type, -mid), neg) << std::hex << k;
  }
}

// Above the largest finite value: IEEE formats round to inf from the midpoint to the next
// binade on (the largest finite code is odd); fp8 saturates everything.
TEST_P(EveryFormat, OverflowBoundary) {
  const Format fm = GetParam();
  const float top = decode(fm.type, fm.max_finite);
  const float below = decode(fm.type, fm.max_finite - 1);
  const float boundary = top + (top - below) / 2;
  const std::uint32_t over = fm.has_inf ? encode(fm.type, std::numeric_limits<float>::infinity()) : fm.max_finite;
  EXPECT_EQ(encode(fm.type, std::nextafter(boundary, 0.0f)), fm.max_finite);
  EXPECT_EQ(encode(fm.type, boundary), over);
  EXPECT_EQ(encode(fm.type, -boundary), fm.sign_bit | over);
  EXPECT_EQ(encode(fm.type, std::numeric_limits<float>::max()), over);
}

// An independent oracle: the nearest value by search over the sorted table of the format's
// values (ties to the even code), checked on ~700k float bit patterns spread over all of them.
TEST_P(EveryFormat, SampledFloatsRoundToTheNearestValue) {
  const Format fm = GetParam();
  std::vector<double> values;
  for (std::uint32_t code = 0; code <= fm.max_finite; ++code) values.push_back(decode(fm.type, code));
  const double top = values.back();
  const double overflow_at = top + (top - values[values.size() - 2]) / 2;
  const std::uint32_t inf_code = fm.has_inf ? fm.max_finite + 1 : fm.max_finite;
  for (std::uint64_t bits = 0; bits < (1ull << 32); bits += 6151) {
    const float x = f(static_cast<std::uint32_t>(bits));
    const std::uint32_t got = encode(fm.type, x);
    if (std::isnan(x)) {
      ASSERT_TRUE(nan_code(fm.type, got));
      continue;
    }
    const double ax = std::abs(static_cast<double>(x));
    std::uint32_t magnitude;
    if (ax >= overflow_at) {
      magnitude = inf_code;
    } else if (ax >= top) {
      magnitude = fm.max_finite;
    } else {
      const auto hi = static_cast<std::uint32_t>(std::upper_bound(values.begin(), values.end(), ax) - values.begin());
      const std::uint32_t lo = hi - 1;
      const double dlo = ax - values[lo], dhi = values[hi] - ax;
      magnitude = dlo < dhi ? lo : dhi < dlo ? hi : (lo % 2 == 0 ? lo : hi);
    }
    const bool negative = std::signbit(x) && (magnitude != 0 || fm.has_negative_zero);
    ASSERT_EQ(got, (negative ? fm.sign_bit : 0u) | magnitude) << "x=" << x << " bits=0x" << std::hex << bits;
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, EveryFormat,
                         ::testing::Values(Format{DType::bf16, 1u << 16, 0x8000u, 0x7F7Fu, true, true},
                                           Format{DType::f16, 1u << 16, 0x8000u, 0x7BFFu, true, true},
                                           Format{DType::fp8_e4m3fn, 256, 0x80u, 0x7Eu, false, true},
                                           Format{DType::fp8_e4m3fnuz, 256, 0x80u, 0x7Fu, false, false}),
                         [](const auto& test) { return std::string(to_string(test.param.type)); });

// --- the runtime wrappers and storage types ------------------------------------------------

TEST(DtypeRuntime, F32IsTheIdentity) {
  for (float v : {0.0f, -0.0f, 1.0f, 0x1p-149f, 3.4e38f, -kInf}) {
    EXPECT_EQ(float_bits(round_to(DType::f32, v)), float_bits(v));
    EXPECT_EQ(encode(DType::f32, v), float_bits(v));
  }
  EXPECT_TRUE(std::isnan(round_to(DType::f32, kNaN)));
}

TEST(DtypeRuntime, WrappersAgreeWithTheCodecs) {
  const float v = 0.7071067811865476f;
  EXPECT_EQ(encode(DType::bf16, v), bf16(v));
  EXPECT_EQ(encode(DType::f16, v), f16(v));
  EXPECT_EQ(encode(DType::fp8_e4m3fn, v), fn(v));
  EXPECT_EQ(encode(DType::fp8_e4m3fnuz, v), fnuz(v));
  EXPECT_EQ(to_float(from_float<bf16_t>(v)), round_to(DType::bf16, v));
  EXPECT_EQ(to_float(from_float<f16_t>(v)), round_to(DType::f16, v));
  EXPECT_EQ(to_float(from_float<fp8_e4m3fn_t>(v)), round_to(DType::fp8_e4m3fn, v));
  EXPECT_EQ(to_float(from_float<fp8_e4m3fnuz_t>(v)), round_to(DType::fp8_e4m3fnuz, v));
  EXPECT_EQ(decoded_bits(DType::fp8_e4m3fnuz, fnuz(-0.0f)), 0u);
}

TEST(DtypeRuntime, NamesRoundTripAndSizes) {
  for (DType t : {DType::f32, DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
    EXPECT_EQ(parse_dtype(to_string(t)), t);
  }
  EXPECT_FALSE(parse_dtype("fp8").has_value());
  EXPECT_EQ(storage_bytes(DType::f32), 4u);
  EXPECT_EQ(storage_bytes(DType::bf16), 2u);
  EXPECT_EQ(storage_bytes(DType::fp8_e4m3fnuz), 1u);
  EXPECT_TRUE(is_fp8(DType::fp8_e4m3fn));
  EXPECT_FALSE(is_fp8(DType::f16));
}

}  // namespace
}  // namespace mlacheck
