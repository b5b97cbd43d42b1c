// Fixture for tests that need a GPU: SKIPPED, with the runtime's reason, where there is none.
#pragma once

#include <gtest/gtest.h>

#include "device/platform/device_info.hpp"

namespace mlacheck {

class RequiresDevice : public testing::Test {
 protected:
  void SetUp() override {
    const DeviceAvailability availability = probe_devices();
    if (availability.count == 0) GTEST_SKIP() << availability.reason;
  }
};

}  // namespace mlacheck
