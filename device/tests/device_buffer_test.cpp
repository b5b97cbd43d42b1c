// Guarded device buffers: round trips, canaries catching out-of-bounds writes, and poison
// catching elements a kernel never wrote.
#include "device/platform/device_buffer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "device/platform/poison.hpp"
#include "device/tests/platform_test_kernels.hpp"
#include "device/tests/requires_device.hpp"

namespace mlacheck {
namespace {

using DeviceBufferTest = RequiresDevice;

TEST_F(DeviceBufferTest, RoundTripKeepsBytesAndGuards) {
  std::vector<float> host(1000);
  std::iota(host.begin(), host.end(), -3.5f);
  const DeviceBuffer buffer = DeviceBuffer::from_host("q", std::span(host));
  EXPECT_EQ(buffer.name(), "q");
  EXPECT_EQ(buffer.bytes(), host.size() * sizeof(float));
  EXPECT_EQ(buffer.download<float>(), host);
  EXPECT_TRUE(verify_canaries({&buffer}).intact());
}

TEST_F(DeviceBufferTest, OddAndEmptySizesRoundTrip) {
  const std::vector<std::uint8_t> three{1, 2, 3};
  const DeviceBuffer odd = DeviceBuffer::from_host("odd", std::span(three));
  EXPECT_EQ(odd.download<std::uint8_t>(), three);

  const DeviceBuffer empty("empty", 0);
  EXPECT_TRUE(empty.download<float>().empty());
  EXPECT_TRUE(verify_canaries({&odd, &empty}).intact());
}

TEST_F(DeviceBufferTest, SizeMismatchIsRefused) {
  DeviceBuffer buffer("kv", 16);
  std::vector<float> wrong(3);
  EXPECT_THROW(buffer.upload(std::span(wrong)), std::invalid_argument);
  EXPECT_THROW(buffer.download(std::span(wrong)), std::invalid_argument);
}

TEST_F(DeviceBufferTest, OneElementPastTheEndIsCaughtAndNamed) {
  constexpr int kCount = 1000;
  const DeviceBuffer bystander("lse", kCount * sizeof(float));
  DeviceBuffer out("out", kCount * sizeof(float));
  test::write_iota(out, 0, kCount + 1);

  const CanaryReport report = verify_canaries({&bystander, &out});
  ASSERT_EQ(report.breaches.size(), 1u) << report.describe();
  const CanaryBreach& breach = report.breaches[0];
  EXPECT_EQ(breach.buffer, "out");
  EXPECT_EQ(breach.side, GuardSide::back);
  EXPECT_EQ(breach.gap, 0u);
  EXPECT_GE(breach.changed_bytes, 1u);
  EXPECT_LE(breach.changed_bytes, sizeof(float));
  EXPECT_NE(report.describe().find("buffer 'out'"), std::string::npos) << report.describe();
}

TEST_F(DeviceBufferTest, OneElementBeforeTheStartIsCaught) {
  DeviceBuffer out("partial_o", 64 * sizeof(float));
  test::write_iota(out, -1, 1);  // stores 0.0f: every byte of it differs from the guard

  const CanaryReport report = verify_canaries({&out});
  ASSERT_EQ(report.breaches.size(), 1u) << report.describe();
  EXPECT_EQ(report.breaches[0].side, GuardSide::front);
  EXPECT_EQ(report.breaches[0].gap, 0u);
  EXPECT_EQ(report.breaches[0].changed_bytes, sizeof(float));
}

TEST_F(DeviceBufferTest, InBoundsWritesLeaveGuardsIntact) {
  DeviceBuffer out("out", 257 * sizeof(float));
  test::write_iota(out, 0, 257);
  EXPECT_TRUE(verify_canaries({&out}).intact());
}

TEST_F(DeviceBufferTest, PoisonRevealsUnwrittenFloats) {
  constexpr int kCount = 1001;
  DeviceBuffer out("lse", kCount * sizeof(float));
  out.poison(kPoisonF32);
  test::write_every_float(out, 2, 0.5f);

  const std::vector<float> host = out.download<float>();
  EXPECT_EQ(count_poisoned(std::span<const float>(host), kPoisonF32), static_cast<std::size_t>(kCount / 2));
  for (int i = 0; i < kCount; ++i) {
    if (i % 2 == 0) {
      EXPECT_EQ(host[i], 0.5f) << i;
    } else {
      EXPECT_TRUE(std::isnan(host[i])) << i;
    }
  }
  EXPECT_TRUE(verify_canaries({&out}).intact());
}

TEST_F(DeviceBufferTest, PoisonRevealsUnwrittenHalves) {
  constexpr int kCount = 300;
  constexpr int kWritten = 256;
  DeviceBuffer out("o_bf16", kCount * sizeof(std::uint16_t));
  out.poison(kPoisonBf16);
  test::write_prefix_u16(out, kWritten, 0x3F80);

  const std::vector<std::uint16_t> host = out.download<std::uint16_t>();
  EXPECT_EQ(count_poisoned(std::span<const std::uint16_t>(host), kPoisonBf16), static_cast<std::size_t>(kCount - kWritten));
  EXPECT_TRUE(verify_canaries({&out}).intact());
}

TEST_F(DeviceBufferTest, PoisonPatternMustTileTheBuffer) {
  DeviceBuffer out("odd", 6);
  EXPECT_THROW(out.poison(kPoisonF32), std::invalid_argument);
  EXPECT_NO_THROW(out.poison(kPoisonBf16));
}

TEST_F(DeviceBufferTest, MoveTransfersOwnership) {
  const std::vector<float> host{1.0f, 2.0f};
  DeviceBuffer first = DeviceBuffer::from_host("kv_indices", std::span(host));
  const DeviceBuffer second = std::move(first);
  EXPECT_EQ(second.name(), "kv_indices");
  EXPECT_EQ(second.download<float>(), host);
  EXPECT_EQ(first.data(), nullptr);  // the documented moved-from state
  EXPECT_TRUE(first.check_guards().empty());
}

}  // namespace
}  // namespace mlacheck
