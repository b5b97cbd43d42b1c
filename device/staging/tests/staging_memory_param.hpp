#pragma once
// Runs a staging test in both memories: host always; device where the build has a GPU backend and
// a GPU is present, SKIPPED with the reason otherwise.
#include <gtest/gtest.h>

#include <string>

#include "device/platform/device_info.hpp"
#include "device/staging/staging_memory.hpp"

namespace mlacheck::staging_test {

class EachMemory : public testing::TestWithParam<StagingMemory> {
 protected:
  void SetUp() override {
    if (GetParam() == StagingMemory::host) return;
    const DeviceAvailability availability = probe_devices();
    if (!staging_available(StagingMemory::device) || availability.count == 0) GTEST_SKIP() << availability.reason;
  }
  StagingMemory memory() const { return GetParam(); }
};

inline std::string memory_name(const testing::TestParamInfo<StagingMemory>& info) {
  return std::string(to_string(info.param));
}

}  // namespace mlacheck::staging_test

#define MLACHECK_STAGING_IN_EACH_MEMORY(suite)                                                                    \
  INSTANTIATE_TEST_SUITE_P(Memory, suite, testing::Values(::mlacheck::StagingMemory::host,                    \
                                                          ::mlacheck::StagingMemory::device),                 \
                           ::mlacheck::staging_test::memory_name)
