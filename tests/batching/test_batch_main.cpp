// mlacheck_test_batch: the two commands behind batched ctest tests (cmake/MlacheckBatchedTests.cmake).
//
//   mlacheck_test_batch batch <results dir> <timeout s> -- <test executable> [args...]
//     Runs the executable once for a batch of cases (its args carry the --gtest_filter), with
//     MLACHECK_CASE_RESULTS_DIR set so that every finished case leaves its result file, under a
//     watchdog. Exits 0 whenever the executable ran, whatever its cases did: the verdicts belong to
//     the cases' own tests, and a failed fixture setup would stop ctest from running them at all.
//   mlacheck_test_batch case <results dir> <Suite.Case> -- <test executable> [args...]
//     Reports one case from its result file (passed and skipped exit 0, failed 1; ctest reads
//     "[  SKIPPED ]"). A case the batch did not finish (it crashed, hung or never started it) is
//     run alone in a fresh process, so a crash costs its own case and no other.
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tests/batching/case_result_file.hpp"

namespace fs = std::filesystem;
using mlacheck::batching::CaseStatus;

namespace {

constexpr const char* kStatusFile = "batch.status";

int usage() {
  std::cerr << "usage: mlacheck_test_batch batch <results dir> <timeout s> -- <executable> [args...]\n"
               "       mlacheck_test_batch case <results dir> <Suite.Case> -- <executable> [args...]\n";
  return 2;
}

std::vector<char*> argv_of(std::vector<std::string>& words) {
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  return argv;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

// The cases a batch runs: the names of its --gtest_filter (the discovery script lists them exactly).
std::vector<std::string> filtered_cases(const std::vector<std::string>& command) {
  constexpr std::string_view kFilter = "--gtest_filter=";
  std::vector<std::string> cases;
  for (const std::string& word : command) {
    if (word.rfind(kFilter, 0) != 0) continue;
    std::string_view list = std::string_view(word).substr(kFilter.size());
    while (!list.empty()) {
      const std::size_t colon = list.find(':');
      cases.emplace_back(list.substr(0, colon));
      list = colon == std::string_view::npos ? std::string_view() : list.substr(colon + 1);
    }
  }
  return cases;
}

bool every_case_finished(const fs::path& dir, const std::vector<std::string>& command) {
  const std::vector<std::string> cases = filtered_cases(command);
  for (const std::string& name : cases) {
    if (!fs::exists(dir / mlacheck::batching::case_result_file_name(name))) return false;
  }
  return !cases.empty();
}

int run_batch(const fs::path& dir, int timeout_s, std::vector<std::string> command) {
  std::error_code error;
  fs::remove_all(dir, error);  // results of an earlier run must never stand in for this one's
  fs::create_directories(dir);
  std::cout << "batch: " << command[0] << " (results in " << dir.string() << ", watchdog " << timeout_s << " s)"
            << std::endl;
  const pid_t child = fork();
  if (child < 0) {
    std::cerr << "batch: fork failed: " << std::strerror(errno) << '\n';
    return 1;
  }
  if (child == 0) {
    setpgid(0, 0);  // the watchdog kills the whole group: death-test children included
    setenv("MLACHECK_CASE_RESULTS_DIR", dir.c_str(), 1);
    std::vector<char*> argv = argv_of(command);
    execv(argv[0], argv.data());
    std::cerr << "batch: cannot run " << command[0] << ": " << std::strerror(errno) << '\n';
    std::_Exit(127);
  }
  setpgid(child, child);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  std::string outcome;
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) {
      outcome = describe_wait_status(status);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-child, SIGKILL);
      waitpid(child, &status, 0);
      outcome = "stopped by the watchdog after " + std::to_string(timeout_s) + " s";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::ofstream(dir / kStatusFile) << outcome << '\n';
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    std::cerr << "batch: the test executable did not start\n";
    return 1;  // nothing ran: the cases' tests must not pass for want of a batch
  }
  if (!mlacheck::batching::read_program_end(dir) && every_case_finished(dir, command)) {
    // Every case has its verdict, yet the program never reached its end: it died in a global
    // tear-down or at exit, a failure no case's test would show.
    std::cerr << "batch: every case finished but the program did not reach its end (" << outcome << ")\n";
    return 1;
  }
  std::cout << "batch: " << outcome << "; each case reports in its own test" << std::endl;
  return 0;
}

int report_case(const fs::path& dir, const std::string& name, std::vector<std::string> command) {
  std::optional<mlacheck::batching::CaseResult> result;
  try {
    result = mlacheck::batching::read_case_result(dir, name);
  } catch (const std::exception& e) {
    std::cerr << "case: " << e.what() << '\n';
    return 1;
  }
  const std::optional<std::string> outside = mlacheck::batching::read_program_end(dir);
  if (result && outside && !outside->empty()) {
    std::cout << "[ RUN      ] " << name << " (in the batch of " << dir.string() << ")\n"
              << result->messages
              << "the batch failed outside any case (a global set-up or tear-down); every case of the batch "
                 "carries it:\n"
              << *outside << "[  FAILED  ] " << name << " (" << result->milliseconds << " ms)" << std::endl;
    return 1;
  }
  if (result) {
    std::cout << "[ RUN      ] " << name << " (in the batch of " << dir.string() << ")\n" << result->messages;
    switch (result->status) {
      case CaseStatus::passed:
        std::cout << "[       OK ] ";
        break;
      case CaseStatus::failed:
        std::cout << "[  FAILED  ] ";
        break;
      case CaseStatus::skipped:
        std::cout << "[  SKIPPED ] ";
        break;
    }
    std::cout << name << " (" << result->milliseconds << " ms)" << std::endl;
    return result->status == CaseStatus::failed ? 1 : 0;
  }
  std::string batch = "never ran";
  if (std::ifstream status(dir / kStatusFile); status) std::getline(status, batch);
  std::cout << "case: the batch did not finish " << name << " (batch: " << batch << "); running it alone" << std::endl;
  command.push_back("--gtest_filter=" + name);
  std::vector<char*> argv = argv_of(command);
  execv(argv[0], argv.data());
  std::cerr << "case: cannot run " << command[0] << ": " << std::strerror(errno) << '\n';
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 5 || args[3] != "--") return usage();
  std::vector<std::string> command(args.begin() + 4, args.end());
  if (args[0] == "batch") {
    int timeout_s = 0;
    try {
      timeout_s = std::stoi(args[2]);
    } catch (const std::exception&) {
    }
    if (timeout_s <= 0) {
      std::cerr << "batch: timeout must be a positive number of seconds, not '" << args[2] << "'\n";
      return 2;
    }
    return run_batch(args[1], timeout_s, std::move(command));
  }
  if (args[0] == "case") return report_case(args[1], args[2], std::move(command));
  return usage();
}
