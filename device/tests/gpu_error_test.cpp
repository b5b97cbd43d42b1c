#include "device/platform/gpu_error.hpp"

#include <gtest/gtest.h>

namespace mlacheck {
namespace {

TEST(GpuError, MessageNamesCallErrorFileAndLine) {
  EXPECT_EQ(format_gpu_error("hipMalloc(&ptr, bytes)", "hipErrorOutOfMemory", "out of memory", "device/foo.hip", 42),
            "hipMalloc(&ptr, bytes) failed: hipErrorOutOfMemory (out of memory) at device/foo.hip:42");
}

TEST(GpuError, CarriesCodeAndWhetherTheDeviceIsLost) {
  const GpuError error("kernel x failed", 700, true);
  EXPECT_STREQ(error.what(), "kernel x failed");
  EXPECT_EQ(error.code(), 700);
  EXPECT_TRUE(error.device_lost());
}

}  // namespace
}  // namespace mlacheck
