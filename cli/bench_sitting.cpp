#include "cli/bench_sitting.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "plan/own_binary.hpp"
#include "plan/plan_file.hpp"
#include "plan/run_plan.hpp"
#include "reports/csv_reader.hpp"
#include "run/child_process.hpp"

namespace mlacheck::cli {

namespace {

namespace fs = std::filesystem;

// A fresh folder under the system's temporary one, removed when this goes out of scope.
struct ScratchFolder {
  fs::path path;
  ScratchFolder() {
    std::random_device entropy;
    for (int attempt = 0; attempt < 100; ++attempt) {
      fs::path candidate = fs::temp_directory_path() / ("mlacheck-sitting-" + std::to_string(entropy()));
      if (fs::create_directory(candidate)) {
        path = candidate;
        return;
      }
    }
    throw std::runtime_error("bench: no fresh temporary folder for the property sitting under " +
                             fs::temp_directory_path().string());
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
};

std::string plan_text(const SittingOptions& options) {
  std::ostringstream text;
  // The budget at full precision: the child must draw within exactly this one.
  text << std::setprecision(std::numeric_limits<double>::max_digits10)
       << "# The property sitting of `mlacheck bench` (cli/bench_sitting.hpp)\n"
       << "properties seed=" << options.seed << " size=" << options.cases << " budget=" << options.work_budget << "\n";
  return text.str();
}

// Runs `argv` with stdout sent to `log` (stderr stays this process's: the run's progress lines
// show while the sitting runs); its waitpid status.
int spawn_and_wait(std::vector<std::string> argv, const fs::path& log) {
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("bench: fork failed for the property sitting");
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) ::dup2(fd, STDOUT_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string tail_of(const fs::path& file, std::size_t bytes) {
  std::ifstream in(file, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return text.size() > bytes ? "..." + text.substr(text.size() - bytes) : text;
}

}  // namespace

SittingResult run_property_sitting(const SittingOptions& options) {
  ScratchFolder scratch;
  const fs::path plan_file = scratch.path / "sitting.plan";
  std::ofstream(plan_file) << plan_text(options);

  SittingResult result;
  {  // The plan the child builds, built here too for what the budget left out (a few seconds).
    RunPlanOptions plan_options = read_plan_file(plan_file.string());
    PlanNotes notes;
    const std::vector<RunCase> plan = build_run_plan(plan_options, &notes);
    result.planned = plan.size();
    result.budget_redrawn = notes.budget_excluded.size();
    const auto asked = static_cast<std::size_t>(options.cases);
    result.budget_left_out = plan.size() < asked ? asked - plan.size() : 0;
  }

  const fs::path binary = own_binary_path();
  if (binary.empty()) throw std::runtime_error("bench: cannot tell this binary's path (no /proc) to run the sitting");
  const fs::path out = scratch.path / "report";
  const fs::path log = scratch.path / "run.log";
  std::vector<std::string> argv{binary.string(), "run", "--plan", plan_file.string(), "--out", out.string(),
                                "--backend", options.backend};
  if (options.device) {
    argv.push_back("--device");
    argv.push_back(std::to_string(*options.device));
  }
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;

  const auto start = std::chrono::steady_clock::now();
  const int status = spawn_and_wait(argv, log);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // 0: every case passed; 1: some failed or errored (counted below); anything else: no sitting.
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
    throw std::runtime_error("bench: the property sitting `" + command + "` ended with " + describe_exit(status) +
                             ":\n" + tail_of(log, 2000));
  }
  const CsvReport report = read_csv_report((out / "report.csv").string());
  result.rows = report.rows.size();
  if (result.rows != result.planned) {
    throw std::runtime_error("bench: the property sitting's report holds " + std::to_string(result.rows) +
                             " rows for a plan of " + std::to_string(result.planned) + " cases (`" + command + "`)");
  }
  for (const CaseResult& row : report.rows) {
    switch (row.state) {
      case ResultState::passed: ++result.passed; break;
      case ResultState::failed: ++result.failed; break;
      case ResultState::errored: ++result.errored; break;
      case ResultState::skipped: ++result.skipped; break;
      default: ++result.other; break;
    }
  }
  return result;
}

}  // namespace mlacheck::cli
