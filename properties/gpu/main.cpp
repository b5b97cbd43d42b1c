// Entry point of the GPU properties: the case count, then GoogleTest with the device and coverage
// environments.
//
// MLACHECK_GPU_PROPERTY_CASES (default 500) is the one knob that scales the run: it becomes
// rapidcheck's max_success, so every property checks that many passing cases (nightly runs raise
// it). An explicit max_success in RC_PARAMS wins, and RC_PARAMS="reproduce=..." replays a failure.
// It is set here, before rapidcheck reads RC_PARAMS on first use, so that running the executable
// directly and running it under ctest check the same number of cases.
#include <gtest/gtest.h>

#include <charconv>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "properties/gpu/coverage.hpp"
#include "properties/gpu/gpu_devices.hpp"
#include "tests/batching/case_result_listener.hpp"

namespace {

constexpr int kDefaultCases = 500;

// Returns false (with a message) when MLACHECK_GPU_PROPERTY_CASES is not a positive integer.
bool set_case_count() {
  int cases = kDefaultCases;
  if (const char* env = std::getenv("MLACHECK_GPU_PROPERTY_CASES")) {
    const std::string_view text(env);
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), cases);
    if (ec != std::errc() || end != text.data() + text.size() || cases < 1) {
      std::cerr << "MLACHECK_GPU_PROPERTY_CASES=" << text << ": must be a positive integer\n";
      return false;
    }
  }
  const char* params = std::getenv("RC_PARAMS");
  std::string merged = params ? params : "";
  if (merged.find("max_success") == std::string::npos) {
    merged = "max_success=" + std::to_string(cases) + (merged.empty() ? "" : " " + merged);
    setenv("RC_PARAMS", merged.c_str(), 1);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!set_case_count()) return 2;
  mlacheck::batching::install_case_result_listener();
  // Torn down in reverse: the coverage check runs while the devices are still held.
  ::testing::AddGlobalTestEnvironment(new mlacheck::GpuDevices);
  ::testing::AddGlobalTestEnvironment(new mlacheck::CoverageCheck);
  return RUN_ALL_TESTS();
}
