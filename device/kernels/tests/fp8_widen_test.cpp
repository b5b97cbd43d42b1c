// The kernels' branch-free fp8 widening (fp8_widen.hpp) against core/dtype_convert.hpp's general
// decoder, for every code of both e4m3 variants and both 16-bit MMA types: the same value (NaN as
// the same quiet NaN) and the same 16-bit code staged_code gave before.
#include "device/kernels/fp8_widen.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "core/dtype_convert.hpp"

namespace mlacheck::kernels {
namespace {

template <class T>
void expect_every_code_widens_exactly() {
  int subnormals = 0;
  for (std::uint32_t code = 0; code < 256; ++code) {
    SCOPED_TRACE(code);
    const float want = to_float(T{static_cast<std::uint8_t>(code)});
    EXPECT_EQ(float_bits(fp8_value<T>(code)), float_bits(want));
    EXPECT_EQ((widened_fp8_code<bf16_t, T>(code)), float_bits(want) >> 16);
    EXPECT_EQ((widened_fp8_code<f16_t, T>(code)), from_float<f16_t>(want).bits);
    if ((code & 0x78u) == 0 && (code & 7u) != 0) ++subnormals;
  }
  EXPECT_EQ(subnormals, 14);  // the comparison above covered both signs of the 7 subnormals
}

TEST(Fp8Widen, EveryFnCodeWidensToItsValue) { expect_every_code_widens_exactly<fp8_e4m3fn_t>(); }

TEST(Fp8Widen, EveryFnuzCodeWidensToItsValue) { expect_every_code_widens_exactly<fp8_e4m3fnuz_t>(); }

// The codes whose handling differs between the variants, spelled out.
TEST(Fp8Widen, TheVariantsSpecialCodes) {
  EXPECT_EQ((widened_fp8_code<bf16_t, fp8_e4m3fn_t>(0x7F)), 0x7FC0);    // NaN
  EXPECT_EQ((widened_fp8_code<bf16_t, fp8_e4m3fn_t>(0xFF)), 0x7FC0);    // NaN, sign dropped as the decoder does
  EXPECT_EQ((widened_fp8_code<bf16_t, fp8_e4m3fn_t>(0x80)), 0x8000);    // -0
  EXPECT_EQ((widened_fp8_code<f16_t, fp8_e4m3fn_t>(0x7E)), 0x5F00);     // 448
  EXPECT_EQ((widened_fp8_code<f16_t, fp8_e4m3fn_t>(0x01)), 0x1800);     // 2^-9
  EXPECT_EQ((widened_fp8_code<bf16_t, fp8_e4m3fnuz_t>(0x80)), 0x7FC0);  // fnuz's only NaN
  EXPECT_EQ((widened_fp8_code<bf16_t, fp8_e4m3fnuz_t>(0x7F)), 0x4370);  // 240
  EXPECT_EQ((widened_fp8_code<f16_t, fp8_e4m3fnuz_t>(0x01)), 0x1400);   // 2^-10
}

}  // namespace
}  // namespace mlacheck::kernels
