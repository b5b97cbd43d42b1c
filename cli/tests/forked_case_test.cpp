// Forked cases under a watchdog (scenarios, mutate, the device probe) and the device preflight's
// decisions, without a GPU: the jobs are plain functions, the censuses made by hand.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "cli/device_preflight.hpp"
#include "cli/forked_child.hpp"
#include "cli/isolated_case.hpp"
#include "cli/merge_command.hpp"
#include "harness/lost_case.hpp"

namespace mlacheck::cli {
namespace {

CaseResult stub() {
  CaseResult row;
  row.id = "s4";
  row.op = "mla_decode";
  row.repro = "mla_decode:name=s4";
  return row;
}

TEST(ForkedCase, AHangingCaseCostsOneErroredRowAfterItsLimit) {
  const auto start = std::chrono::steady_clock::now();
  const CaseResult row = run_in_child(
      stub(),
      [] {
        while (true) std::this_thread::sleep_for(std::chrono::hours(1));
        return CaseResult{};
      },
      1.0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 30.0);
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_EQ(row.id, "s4");
  EXPECT_EQ(row.reason, watchdog_reason(1.0, "the case's process"));
  EXPECT_EQ(case_loss(row), CaseLoss::timed_out);
}

TEST(ForkedCase, ACrashingCaseIsErroredNamingTheSignal) {
  const CaseResult row = run_in_child(
      stub(),
      []() -> CaseResult {
        std::raise(SIGSEGV);
        return {};
      },
      30.0);
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_NE(row.reason.find("died while running this case: signal 11"), std::string::npos) << row.reason;
  EXPECT_EQ(case_loss(row), CaseLoss::process_died);
}

TEST(ForkedCase, AFinishedCaseComesBackWhole) {
  const CaseResult row = run_in_child(
      stub(),
      [] {
        CaseResult r = stub();
        r.state = ResultState::failed;
        r.reason = "O: 3 of 4096, \"quoted\"\nsecond line";
        r.device_index = 2;
        r.device_pci_bus_id = "0000:c1:00.0";
        return r;
      },
      30.0);
  EXPECT_EQ(row.state, ResultState::failed);
  EXPECT_EQ(row.reason, "O: 3 of 4096, \"quoted\"\nsecond line");
  EXPECT_EQ(row.device_index, 2);
  EXPECT_EQ(row.device_pci_bus_id, "0000:c1:00.0");
}

GpuCensus census(int count, std::vector<GpuCensus::Gpu> probed) {
  GpuCensus c;
  c.count = count;
  c.none_reason = count == 0 ? "no CUDA device: cudaErrorNoDevice" : "";
  c.probed = std::move(probed);
  return c;
}

TEST(DevicePreflight, NoGpuAtAllRunsSkippedWithTheReason) {
  const DevicePlan plan = plan_devices(std::nullopt, census(0, {}));
  EXPECT_TRUE(plan.devices.empty());
  EXPECT_EQ(plan.no_gpu_reason, "no CUDA device: cudaErrorNoDevice");
  EXPECT_TRUE(plan_devices(3, census(0, {})).devices.empty());
}

TEST(DevicePreflight, AGpuThatDoesNotExistIsAnError) {
  try {
    plan_devices(2, census(2, {}));
    FAIL() << "no error";
  } catch (const PreflightError& e) {
    EXPECT_EQ(std::string(e.what()), "--device 2: GPU 2 does not exist (2 visible: 0..1)");
  }
}

TEST(DevicePreflight, ABackendThatCannotStartOnAPresentGpuIsAnError) {
  EXPECT_THROW(plan_devices(std::nullopt, census(2, {{0, true, "H100"}, {1, false, "cudaErrorDevicesUnavailable"}})),
               PreflightError);
  const DevicePlan plan = plan_devices(std::nullopt, census(2, {{0, true, "H100"}, {1, true, "H200"}}));
  EXPECT_EQ(plan.devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(plan.names, (std::vector<std::string>{"H100", "H200"}));
}

TEST(DevicePreflight, TheCensusSurvivesTheTripFromTheChild) {
  const GpuCensus c = census(2, {{1, false, "GPU 1 cannot be used:\tbusy\nreally"}});
  const GpuCensus back = decode_census(encode_census(c));
  EXPECT_EQ(back.count, 2);
  ASSERT_EQ(back.probed.size(), 1u);
  EXPECT_EQ(back.probed[0].index, 1);
  EXPECT_FALSE(back.probed[0].usable);
  EXPECT_EQ(back.probed[0].name_or_reason, "GPU 1 cannot be used: busy really");
  EXPECT_THROW(decode_census("gpu\t0\t1\tx\n"), PreflightError);  // no count line
}

TEST(DevicePreflight, AProbeThatCrashesIsAnError) {
  ::setenv("MLACHECK_TEST_CRASH_DEVICE_PROBE", "1", 1);
  try {
    preflight_devices(std::nullopt, "hip", 30.0);
    ADD_FAILURE() << "no error";
  } catch (const PreflightError& e) {
    EXPECT_NE(std::string(e.what()).find("the device probe crashed: signal 6"), std::string::npos) << e.what();
  }
  ::unsetenv("MLACHECK_TEST_CRASH_DEVICE_PROBE");
}

TEST(Merge, TheOutputMayNotBeAnInput) {
  EXPECT_THROW(check_output_is_no_input("a.csv", {"b.csv", "a.csv"}), std::invalid_argument);
  EXPECT_THROW(check_output_is_no_input("./x/../a.csv", {"a.csv"}), std::invalid_argument);
  EXPECT_NO_THROW(check_output_is_no_input("merged.csv", {"a.csv", "b.csv"}));
}

}  // namespace
}  // namespace mlacheck::cli
