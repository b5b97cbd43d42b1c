// The device's fp8 widening (lds_chunk.hpp: widen_chunk, which stages fp8 q and caches in both
// decode kernels, on sm_89+ through the hardware e4m3fn conversion) against its host twin,
// fp8_widen.hpp's widened_fp8_code, for every code of both e4m3 variants into both 16-bit MMA
// types (code c at place c % 16 of its 16-code chunk): bit for bit, NaN only as
// some NaN, and never as the poison code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/dtype.hpp"
#include "core/dtype_convert.hpp"
#include "core/poison_codes.hpp"
#include "device/kernels/fp8_widen.hpp"
#include "device/kernels/tests/fp8_widen_kernels.hpp"
#include "device/tests/requires_device.hpp"

namespace mlacheck::kernels {
namespace {

bool is_nan_code(DType mma, std::uint16_t code) { return std::isnan(decode(mma, code)); }

template <class T>
std::uint16_t host_code(DType mma, std::uint8_t code) {
  return mma == DType::bf16 ? widened_fp8_code<bf16_t, T>(code) : widened_fp8_code<f16_t, T>(code);
}

template <class T>
void expect_device_widens_as_the_host(DType fp8, DType mma) {
  SCOPED_TRACE(std::string(to_string(fp8)) + " into " + std::string(to_string(mma)));
  std::vector<std::uint8_t> codes(256);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>(i);
  const std::vector<std::uint16_t> got = test::widen_fp8_on_device(fp8, mma, codes);
  ASSERT_EQ(got.size(), codes.size());
  int nans = 0;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const std::uint16_t want = host_code<T>(mma, codes[i]);
    if (is_nan_code(mma, want)) {
      ++nans;
      EXPECT_TRUE(is_nan_code(mma, got[i])) << "code " << int{codes[i]} << " at " << i << ": got " << got[i];
      // The device's NaN is a NaN it writes, never the poison of the type (core/poison_codes.hpp).
      EXPECT_NE(got[i], poison_code(mma)) << "code " << int{codes[i]} << " widens to the " << to_string(mma) << " poison";
    } else {
      EXPECT_EQ(got[i], want) << "code " << int{codes[i]} << " at " << i;
    }
  }
  const int nan_codes = std::is_same_v<T, fp8_e4m3fn_t> ? 2 : 1;
  EXPECT_EQ(nans, nan_codes);
}

using Fp8WidenOnDevice = RequiresDevice;

TEST_F(Fp8WidenOnDevice, EveryCodeMatchesTheHostTwin) {
  for (DType mma : {DType::bf16, DType::f16}) {
    expect_device_widens_as_the_host<fp8_e4m3fn_t>(DType::fp8_e4m3fn, mma);
    expect_device_widens_as_the_host<fp8_e4m3fnuz_t>(DType::fp8_e4m3fnuz, mma);
  }
}

}  // namespace
}  // namespace mlacheck::kernels
