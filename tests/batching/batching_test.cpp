// The batched-test machinery end to end: result files, the batch and case commands of
// mlacheck_test_batch against a demo executable, and the ctest file the discovery script writes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/batching/case_result_file.hpp"

namespace fs = std::filesystem;

namespace mlacheck::batching {
namespace {

struct Ran {
  int exit_code = -1;
  std::string output;
};

// The configured tool, or the one on PATH where this build was carried to a machine without it
// (the GPU hosts have another CMake in another place).
std::string tool(const char* configured, const char* name) { return fs::exists(configured) ? configured : name; }

// Runs a shell command line, stdout and stderr together.
Ran run(const std::string& command) {
  Ran ran;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return ran;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) ran.output.append(buffer, n);
  const int status = pclose(pipe);
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return ran;
}

class Batching : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mlacheck-batching-" + std::to_string(getpid()) + "-" +
                                        testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string results() const { return (dir_ / "batch").string(); }
  Ran batch(const std::string& filter, const std::string& env = "", int timeout_s = 60) const {
    return run(env + " " MLACHECK_TEST_BATCH_TOOL " batch " + results() + " " + std::to_string(timeout_s) +
               " -- " MLACHECK_BATCHING_DEMO " --gtest_filter=" + filter);
  }
  Ran report(const std::string& name, const std::string& env = "") const {
    return run(env + " " MLACHECK_TEST_BATCH_TOOL " case " + results() + " " + name + " -- " MLACHECK_BATCHING_DEMO);
  }

  fs::path dir_;
};

TEST(CaseResultFile, NamesAreSafeAndDistinct) {
  EXPECT_EQ(case_result_file_name("Suite.Case"), "Suite.Case.result");
  EXPECT_EQ(case_result_file_name("Grid/HeadPadding.Pad/h1"), "Grid%2FHeadPadding.Pad%2Fh1.result");
  EXPECT_NE(case_result_file_name("a/b"), case_result_file_name("a%2Fb"));
  EXPECT_EQ(case_result_file_name(".."), "%2E..result");
}

TEST(CaseResultFile, RoundTripsAndRefusesGarbage) {
  const fs::path dir = fs::temp_directory_path() / ("mlacheck-result-file-" + std::to_string(getpid()));
  fs::create_directories(dir);
  write_case_result(dir, "S.C/1", {CaseStatus::failed, 42, "x.cpp:3: Failure\nboom\n"});
  const auto back = read_case_result(dir, "S.C/1");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->status, CaseStatus::failed);
  EXPECT_EQ(back->milliseconds, 42);
  EXPECT_EQ(back->messages, "x.cpp:3: Failure\nboom\n");
  EXPECT_FALSE(read_case_result(dir, "S.Missing").has_value());
  std::ofstream(dir / case_result_file_name("S.Bad")) << "MAYBE 1\n";
  EXPECT_THROW(read_case_result(dir, "S.Bad"), std::runtime_error);
  fs::remove_all(dir);
}

TEST_F(Batching, EachCaseReportsItsOwnVerdictFromOneProcess) {
  const Ran ran = batch("Demo.Passes:Demo.Fails:Demo.Skips");
  EXPECT_EQ(ran.exit_code, 0) << "a batch whose cases fail still ran: " << ran.output;

  const Ran passes = report("Demo.Passes");
  EXPECT_EQ(passes.exit_code, 0) << passes.output;
  EXPECT_NE(passes.output.find("[       OK ] Demo.Passes"), std::string::npos) << passes.output;
  EXPECT_EQ(passes.output.find("running it alone"), std::string::npos) << passes.output;

  const Ran fails = report("Demo.Fails");
  EXPECT_EQ(fails.exit_code, 1) << fails.output;
  EXPECT_NE(fails.output.find("arithmetic is broken on purpose"), std::string::npos) << fails.output;
  EXPECT_NE(fails.output.find("demo_cases.cpp:"), std::string::npos) << "the failure names its line: " << fails.output;

  const Ran skips = report("Demo.Skips");
  EXPECT_EQ(skips.exit_code, 0) << skips.output;
  EXPECT_NE(skips.output.find("[  SKIPPED ] Demo.Skips"), std::string::npos) << skips.output;
  EXPECT_NE(skips.output.find("no such device here"), std::string::npos) << skips.output;
}

TEST_F(Batching, ACrashCostsOnlyItsOwnCase) {
  const std::string env = "MLACHECK_DEMO_CRASH=1";
  const Ran ran = batch("Demo.Passes:Demo.CrashesWhenAsked:Demo.RunsAfterTheOthers", env);
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("killed by signal"), std::string::npos) << ran.output;

  EXPECT_EQ(report("Demo.Passes", env).exit_code, 0);
  const Ran crashed = report("Demo.CrashesWhenAsked", env);
  EXPECT_NE(crashed.exit_code, 0) << "run alone, the crashing case crashes again: " << crashed.output;
  EXPECT_NE(crashed.output.find("running it alone"), std::string::npos) << crashed.output;
  const Ran after = report("Demo.RunsAfterTheOthers", env);
  EXPECT_EQ(after.exit_code, 0) << "the case after the crash runs alone and passes: " << after.output;
  EXPECT_NE(after.output.find("running it alone"), std::string::npos) << after.output;
}

TEST_F(Batching, TheWatchdogStopsAHungBatch) {
  const auto start = std::chrono::steady_clock::now();
  const Ran ran = batch("Demo.Passes:Demo.HangsWhenAsked", "MLACHECK_DEMO_HANG=1", 2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("stopped by the watchdog after 2 s"), std::string::npos) << ran.output;
  EXPECT_EQ(report("Demo.Passes").exit_code, 0);
  // Without the hang request the lost case, run alone, passes.
  const Ran alone = report("Demo.HangsWhenAsked");
  EXPECT_EQ(alone.exit_code, 0) << alone.output;
  EXPECT_NE(alone.output.find("stopped by the watchdog"), std::string::npos) << alone.output;
}

TEST_F(Batching, AFailureOutsideAnyCaseFailsEveryCaseOfTheBatch) {
  const std::string env = "MLACHECK_DEMO_TEARDOWN_FAIL=1";
  ASSERT_EQ(batch("Demo.Passes:Demo.Skips", env).exit_code, 0);
  for (const char* name : {"Demo.Passes", "Demo.Skips"}) {
    const Ran ran = report(name, env);
    EXPECT_EQ(ran.exit_code, 1) << ran.output;
    EXPECT_NE(ran.output.find("the demo tear-down failed on purpose"), std::string::npos) << ran.output;
  }
}

TEST_F(Batching, ADeathAfterTheLastCaseFailsTheBatch) {
  const Ran ran = batch("Demo.Passes", "MLACHECK_DEMO_TEARDOWN_ABORT=1");
  EXPECT_EQ(ran.exit_code, 1) << ran.output;
  EXPECT_NE(ran.output.find("did not reach its end"), std::string::npos) << ran.output;
}

TEST_F(Batching, ABatchClearsResultsOfEarlierRuns) {
  fs::create_directories(results());
  write_case_result(results(), "Demo.Fails", {CaseStatus::passed, 1, ""});
  ASSERT_EQ(batch("Demo.Passes").exit_code, 0);
  const Ran stale = report("Demo.Fails");
  EXPECT_EQ(stale.exit_code, 1) << "a result from an earlier run must not stand in: " << stale.output;
}

TEST_F(Batching, AnExecutableThatCannotStartFailsTheBatch) {
  const Ran ran = run(MLACHECK_TEST_BATCH_TOOL " batch " + results() + " 10 -- /nonexistent/tests");
  EXPECT_NE(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("/nonexistent/tests"), std::string::npos) << ran.output;
}

// The ctest file: batches of the requested size, one test per case named as GoogleTest names it
// (parameter descriptions dropped), each requiring its batch; and ctest honours the fixtures.
TEST_F(Batching, DiscoveryWritesBatchesAndOneTestPerCase) {
  const fs::path out = dir_ / "CTestTestfile.cmake";
  const Ran ran =
      run(tool(MLACHECK_CMAKE_COMMAND, "cmake") +
          " -DTARGET=demo -DEXECUTABLE=" MLACHECK_BATCHING_DEMO " -DTOOL=" MLACHECK_TEST_BATCH_TOOL " -DRESULTS_DIR=" +
          results() + " -DWORKING_DIR=" + dir_.string() +
          " -DCASES_PER_BATCH=3 -DBATCH_TIMEOUT=60 -DDISCOVERY_TIMEOUT=30"
          " -DPROPERTIES='LABELS|demo_label' -DOUTPUT=" +
          out.string() + " -P " MLACHECK_BATCHED_TESTS_SCRIPT);
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  const std::string file = text.str();
  EXPECT_NE(file.find("# 8 cases of demo, 3 per batch"), std::string::npos) << file;
  for (const char* batch : {"demo.batch.000", "demo.batch.001", "demo.batch.002"}) {
    EXPECT_NE(file.find(std::string("FIXTURES_SETUP [=[") + batch), std::string::npos) << batch << "\n" << file;
  }
  EXPECT_EQ(file.find("demo.batch.003"), std::string::npos) << file;
  EXPECT_NE(file.find("add_test([=[Sizes/Sized.IsPositive/size_16]=]"), std::string::npos) << file;
  EXPECT_EQ(file.find("GetParam"), std::string::npos) << "names carry no parameter descriptions";
  EXPECT_NE(file.find("demo_label"), std::string::npos) << file;

  const std::string ctest = tool(MLACHECK_CTEST_COMMAND, "ctest");
  // Selecting one case runs its batch first; its verdict then comes from the batch's file.
  const Ran one = run(ctest + " --test-dir " + dir_.string() + " -R 'Demo.Fails$' --output-on-failure");
  EXPECT_NE(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find("demo.batch.000"), std::string::npos) << one.output;
  EXPECT_NE(one.output.find("arithmetic is broken on purpose"), std::string::npos) << one.output;
  const Ran sized = run(ctest + " --test-dir " + dir_.string() + " -R '^Sizes/' -L demo_label");
  EXPECT_EQ(sized.exit_code, 0) << sized.output;
  EXPECT_NE(sized.output.find("demo.batch.002"), std::string::npos) << sized.output;
  EXPECT_NE(sized.output.find("100% tests passed"), std::string::npos) << sized.output;
}

}  // namespace
}  // namespace mlacheck::batching
