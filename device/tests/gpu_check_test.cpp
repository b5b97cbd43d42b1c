// GPU_CHECK and GPU_CHECK_LAUNCH against the real runtime.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>

#include "device/platform/gpu_error.hpp"
#include "device/platform/sync_after_launch.hpp"
#include "device/tests/platform_test_kernels.hpp"
#include "device/tests/requires_device.hpp"

namespace mlacheck {
namespace {

// Needs no device: without one, the runtime reports an error for index -1 all the same.
TEST(GpuCheck, FailedCallBecomesGpuErrorNamingCallFileAndLine) {
  try {
    test::set_device_minus_one();
    FAIL() << "hipSetDevice(-1) succeeded";
  } catch (const GpuError& error) {
    const std::string message = error.what();
    EXPECT_TRUE(std::regex_match(
        message, std::regex(R"(hipSetDevice\(-1\) failed: \w+ \(.+\) at .*platform_test_kernels\.hip:[0-9]+)")))
        << message;
    EXPECT_NE(error.code(), 0);
    EXPECT_FALSE(error.device_lost());
  }
}

using GpuLaunch = RequiresDevice;

// With a device, everything else works after a failed call; so it is reported once, and the
// next launch check must not see it again. (Without one, every call fails, this one too.)
TEST_F(GpuLaunch, FailedCallIsReportedOnlyOnce) {
  EXPECT_THROW(test::set_device_minus_one(), GpuError);
  EXPECT_TRUE(test::last_error_is_clear());
}

TEST_F(GpuLaunch, ImpossibleLaunchBecomesGpuError) {
  try {
    test::launch_oversized_block();
    FAIL() << "a launch of 4096 threads per block was accepted";
  } catch (const GpuError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("launch of idle_kernel failed: ", 0), 0u) << error.what();
    EXPECT_FALSE(error.device_lost());
  }
}

// A store to an unmapped address is a sticky fault: it must arrive as a GpuError saying the
// device is lost, not as an abort. It runs in a fresh process (threadsafe death test style)
// because the fault leaves this process's GPU context unusable for every later test.
TEST_F(GpuLaunch, IllegalAddressBecomesGpuErrorWithDeviceLost) {
#if defined(MLACHECK_GPU_HIP)
  GTEST_SKIP() << "on ROCm the runtime terminates the process on a GPU memory fault (HSA "
                  "system event handler); it cannot be caught in-process";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        set_sync_after_launch(true);
        try {
          test::launch_store_to(16);
          std::fprintf(stderr, "no error reported\n");
          std::_Exit(2);
        } catch (const GpuError& error) {
          std::fprintf(stderr, "device_lost=%d %s\n", error.device_lost() ? 1 : 0, error.what());
          std::_Exit(0);  // skips runtime teardown in a context that is already lost
        }
      },
      testing::ExitedWithCode(0), "device_lost=1 kernel store_one failed: [a-zA-Z]+IllegalAddress");
#endif
}

}  // namespace
}  // namespace mlacheck
