// Cases in processes of their own under a watchdog (run/isolated_cases.hpp: run, scenarios,
// mutate, sensitivity), the child processes under them (run/child_process.hpp: the device probe
// too) and the device preflight's decisions, without a GPU: the jobs are plain functions, the
// censuses made by hand. A crash or a hang costs one ERRORED row naming how its process ended;
// every other row comes back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <thread>

#include "run/child_process.hpp"
#include "cli/device_preflight.hpp"
#include "run/isolated_cases.hpp"
#include "cli/merge_command.hpp"
#include "run/run_worker.hpp"
#include "harness/lost_case.hpp"

namespace mlacheck::cli {
namespace {

CaseResult stub(const std::string& id = "s4") {
  CaseResult row;
  row.id = id;
  row.op = "mla_decode";
  row.repro = "mla_decode:name=" + id;
  return row;
}

[[noreturn]] void hang() {
  while (true) std::this_thread::sleep_for(std::chrono::hours(1));
}

TEST(ChildProcess, DescribesSignalsAndExitStatuses) {
  // waitpid encodings (Linux): a signal in the low 7 bits; an exit status in bits 8-15.
  EXPECT_NE(describe_exit(SIGSEGV).find("signal 11"), std::string::npos);
  EXPECT_EQ(describe_exit(3 << 8), "exit status 3");
}

TEST(ChildProcess, AForkedAnswerComesBackWholeOrSaysHowTheChildEnded) {
  const ChildOutcome whole = run_forked([] { return "answer " + std::string(100000, 'x'); }, 60.0);
  EXPECT_TRUE(whole.reported) << whole.ended;
  EXPECT_EQ(whole.output, "answer " + std::string(100000, 'x'));
  const ChildOutcome crashed = run_forked(
      []() -> std::string {
        std::raise(SIGSEGV);
        return "never";
      },
      60.0);
  EXPECT_FALSE(crashed.reported);
  EXPECT_NE(crashed.ended.find("signal 11"), std::string::npos) << crashed.ended;
  const ChildOutcome hung = run_forked(
      []() -> std::string {
        ::sleep(60);
        return "late";
      },
      2.0);
  EXPECT_TRUE(hung.timed_out);
  EXPECT_FALSE(hung.reported);
  EXPECT_EQ(hung.ended, "after 2 s");
}

TEST(IsolatedCases, ALostCaseOfTheRunPlanIsErroredWithItsRepro) {
  const RunCase c{"k", RunCase::Kind::device, "kv_gather:name=k", 5.0};
  const CaseResult row = lost_case_row(run_case_stub(c), ErrorKind::timed_out, "timed out");
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_EQ(row.error_kind, ErrorKind::timed_out);
  EXPECT_EQ(row.id, "k");
  EXPECT_EQ(row.op, "kv_gather");
  EXPECT_EQ(row.repro, c.repro);
  EXPECT_EQ(row.reason, "timed out");
}

TEST(IsolatedCases, AHangingCaseCostsOneErroredRowAfterItsLimit) {
  const auto start = std::chrono::steady_clock::now();
  const CaseResult row = run_isolated_case({stub(), 1.0}, []() -> CaseResult { hang(); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 30.0);
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_EQ(row.id, "s4");
  EXPECT_EQ(row.reason, watchdog_reason(1.0, "the case's process"));
  EXPECT_EQ(row.error_kind, ErrorKind::timed_out);
}

TEST(IsolatedCases, ACrashingCaseIsErroredNamingTheSignal) {
  const CaseResult row = run_isolated_case({stub(), 30.0}, []() -> CaseResult {
    std::raise(SIGSEGV);
    return {};
  });
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_NE(row.reason.find("died while running this case: signal 11"), std::string::npos) << row.reason;
  EXPECT_EQ(row.error_kind, ErrorKind::crashed);
}

TEST(IsolatedCases, AnExceptionIsTheCasesErroredRow) {
  const CaseResult row = run_isolated_case({stub(), 30.0}, []() -> CaseResult { throw std::runtime_error("no luck"); });
  EXPECT_EQ(row.state, ResultState::errored);
  EXPECT_EQ(row.reason, "no luck");
  EXPECT_EQ(row.error_kind, ErrorKind::harness_error);
}

TEST(IsolatedCases, AFinishedCaseComesBackWhole) {
  const CaseResult row = run_isolated_case({stub(), 30.0}, [] {
    CaseResult r = stub();
    r.state = ResultState::failed;
    r.reason = "O: 3 of 4096, \"quoted\"\nsecond line";
    r.device_index = 2;
    r.device_pci_bus_id = "0000:c1:00.0";
    return r;
  });
  EXPECT_EQ(row.state, ResultState::failed);
  EXPECT_EQ(row.reason, "O: 3 of 4096, \"quoted\"\nsecond line");
  EXPECT_EQ(row.device_index, 2);
  EXPECT_EQ(row.device_pci_bus_id, "0000:c1:00.0");
}

// Twelve cases in three processes: case 4 crashes its process, case 7 hangs in its; each costs
// its own row, a fresh process takes the rest of that share, and every other row comes back,
// once, under its stub's id, in order within its process's share.
TEST(IsolatedCases, ACrashOrAHangCostsOneRowAndNoFinishedRowIsLost) {
  std::vector<IsolatedCase> cases;
  for (int i = 0; i < 12; ++i) cases.push_back({stub("c" + std::to_string(i)), i == 7 ? 2.0 : 60.0});
  const IsolatedJob job = [](std::size_t, std::span<const std::size_t> todo, const RowSender& send) {
    for (std::size_t i : todo) {
      if (i == 4) std::raise(SIGSEGV);
      if (i == 7) hang();
      CaseResult r = stub("written-by-the-job");
      r.state = ResultState::passed;
      send(i, r);
    }
  };
  IsolationOptions options;
  options.processes = 3;
  options.process_name = "the worker process";
  std::map<std::size_t, CaseResult> rows;
  std::vector<std::size_t> order;
  run_isolated(cases, job, options, [&](std::size_t i, CaseResult row) {
    EXPECT_FALSE(rows.count(i)) << "case " << i << " twice";
    order.push_back(i);
    rows[i] = std::move(row);
  });
  ASSERT_EQ(rows.size(), cases.size());
  for (const auto& [i, row] : rows) {
    EXPECT_EQ(row.id, "c" + std::to_string(i));
    if (i == 4) {
      EXPECT_EQ(row.reason, process_died_reason("the worker process", "signal 11 (Segmentation fault)"));
    } else if (i == 7) {
      EXPECT_EQ(row.reason, watchdog_reason(2.0, "the worker process"));
    } else {
      EXPECT_EQ(row.state, ResultState::passed) << i << ": " << row.reason;
    }
  }
  // The other processes do not wait for the hung one: after its watchdog row come only the cases
  // of its own share that it had not reached.
  const auto hung = std::find(order.begin(), order.end(), 7u);
  for (auto it = hung + 1; it != order.end(); ++it) EXPECT_TRUE(*it % 3 == 1 && *it > 7u) << *it;
  // Round-robin shares (i % 3), each in order.
  std::vector<std::size_t> last(3, 0);
  std::vector<bool> seen(3, false);
  for (std::size_t i : order) {
    if (seen[i % 3]) {
      EXPECT_GT(i, last[i % 3]);
    }
    seen[i % 3] = true;
    last[i % 3] = i;
  }
}

// A job that stops after a row (its device was lost) leaves the rest to a fresh process: no row
// is lost for it. Groups keep consecutive cases in one process.
TEST(IsolatedCases, AShareThatStopsAfterARowGoesOnInAFreshProcess) {
  std::vector<IsolatedCase> cases;
  for (int i = 0; i < 6; ++i) cases.push_back({stub("c" + std::to_string(i)), 60.0});
  const pid_t parent = ::getpid();
  const IsolatedJob job = [&](std::size_t slot, std::span<const std::size_t> todo, const RowSender& send) {
    for (std::size_t i : todo) {
      CaseResult r = stub();
      r.state = ResultState::passed;
      r.reason = std::to_string(slot) + "/" + std::to_string(::getpid() == parent ? 0 : 1);
      send(i, r);
      if (i == 1) return;  // as run_worker_cases does after a lost device
    }
  };
  IsolationOptions options;
  options.processes = 2;
  options.group = 3;
  std::vector<CaseResult> rows(cases.size());
  run_isolated(cases, job, options, [&](std::size_t i, CaseResult row) { rows[i] = std::move(row); });
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].state, ResultState::passed) << i << ": " << rows[i].reason;
    EXPECT_EQ(rows[i].reason, (i < 3 ? "0" : "1") + std::string("/1")) << "cases 0-2 in slot 0, 3-5 in slot 1, forked";
  }
}

TEST(IsolatedCases, TheTestVariablesBreakTheProcessOfTheNamedCase) {
  std::vector<IsolatedCase> cases;
  for (int i = 0; i < 4; ++i) cases.push_back({stub("c" + std::to_string(i)), i == 2 ? 2.0 : 60.0});
  const IsolatedJob job = [](std::size_t, std::span<const std::size_t> todo, const RowSender& send) {
    for (std::size_t i : todo) {
      CaseResult r = stub("c" + std::to_string(i));
      r.state = ResultState::passed;
      send(i, r);
    }
  };
  ::setenv("MLACHECK_TEST_CRASH_CASE", "c1", 1);
  ::setenv("MLACHECK_TEST_HANG_CASE", "c2", 1);
  std::vector<CaseResult> rows(cases.size());
  run_isolated(cases, job, IsolationOptions{}, [&](std::size_t i, CaseResult row) { rows[i] = std::move(row); });
  ::unsetenv("MLACHECK_TEST_CRASH_CASE");
  ::unsetenv("MLACHECK_TEST_HANG_CASE");
  EXPECT_EQ(rows[0].state, ResultState::passed);
  EXPECT_NE(rows[1].reason.find("died while running this case: signal 6"), std::string::npos) << rows[1].reason;
  EXPECT_EQ(rows[2].reason, watchdog_reason(2.0, "the case's process"));
  EXPECT_EQ(rows[3].state, ResultState::passed);
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
