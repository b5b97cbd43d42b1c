// Runs in every build: the answer to "is there a device?" must always come with a reason when
// it is no, since SKIPPED rows quote it.
#include <gtest/gtest.h>

#include "device/platform/device_info.hpp"
#include "device/platform/gpu_error.hpp"

namespace mlacheck {
namespace {

TEST(DeviceAvailability, NoDeviceAlwaysComesWithAReason) {
  const DeviceAvailability availability = probe_devices();
  ASSERT_GE(availability.count, 0);
  if (availability.count == 0) {
    EXPECT_FALSE(availability.reason.empty());
  } else {
    EXPECT_TRUE(availability.reason.empty()) << availability.reason;
  }
  EXPECT_EQ(device_count(), availability.count);
}

#if defined(MLACHECK_GPU_HIP) || defined(MLACHECK_GPU_CUDA)

TEST(DeviceAvailability, ReasonNamesTheBackend) {
  const DeviceAvailability availability = probe_devices();
  if (availability.count > 0) GTEST_SKIP() << "a device is present: nothing to explain";
#if defined(MLACHECK_GPU_HIP)
  EXPECT_EQ(gpu_backend(), "hip");
  EXPECT_EQ(availability.reason.rfind("no HIP device: ", 0), 0u) << availability.reason;
#else
  EXPECT_EQ(gpu_backend(), "cuda");
  EXPECT_EQ(availability.reason.rfind("no CUDA device: ", 0), 0u) << availability.reason;
#endif
}

#else

TEST(DeviceAvailability, BuildWithoutGpuSaysSo) {
  EXPECT_EQ(gpu_backend(), "none");
  EXPECT_EQ(probe_devices().reason.rfind("built without GPU support (", 0), 0u) << probe_devices().reason;
  EXPECT_THROW(device_info(0), GpuError);
}

#endif

}  // namespace
}  // namespace mlacheck
