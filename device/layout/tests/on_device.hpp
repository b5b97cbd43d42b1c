#pragma once
// Fixture for the layout tests that need a GPU: SKIPPED, with the runtime's reason, where there
// is none. Base is testing::Test or testing::TestWithParam<P>.
#include <gtest/gtest.h>

#include "device/platform/device_info.hpp"

namespace mlacheck::layout::test {

template <class Base = testing::Test>
class OnDevice : public Base {
 protected:
  void SetUp() override {
    const DeviceAvailability availability = probe_devices();
    if (availability.count == 0) GTEST_SKIP() << availability.reason;
  }
};

}  // namespace mlacheck::layout::test
