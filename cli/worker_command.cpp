#include "cli/worker_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "cli/worker_protocol.hpp"
#include "core/mla_problem.hpp"
#include "device/backend_factory.hpp"
#include "harness/case_prefetch.hpp"
#include "harness/oracle_self_check.hpp"

namespace mlacheck::cli {

namespace {

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      std::cerr << "mlacheck worker: the supervisor stopped listening\n";
      std::_Exit(1);
    }
    done += static_cast<std::size_t>(n);
  }
}

bool env_names(const char* var, const std::string& id) {
  const char* v = std::getenv(var);
  return v != nullptr && id == v;
}

// The deliberate breakages of worker_command.hpp, for the supervisor's tests.
void break_on_purpose(const std::string& id) {
  if (env_names("MLACHECK_TEST_CRASH_CASE", id)) std::abort();
  if (env_names("MLACHECK_TEST_HANG_CASE", id)) {
    while (true) std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

}  // namespace

void add_worker_command(CLI::App& app, WorkerOptions& options) {
  CLI::App* cmd = app.add_subcommand("worker", "Runs cases for a `mlacheck run` supervisor (internal)");
  cmd->group("");  // hidden from --help: users never start it themselves
  cmd->add_option("--device", options.device, "GPU index");
  cmd->add_option("--result-fd", options.result_fd, "File descriptor for the row frames");
  cmd->add_option("--lookahead", options.lookahead, "Cases prepared ahead of the device");
  cmd->add_option("--backend", options.backend, "\"hip\" or a backend plugin's path");
}

int run_worker(const WorkerOptions& options) {
  std::vector<CaseLine> lines;
  for (std::string line; std::getline(std::cin, line);) {
    if (!line.empty()) lines.push_back(decode_case_line(line));
  }
  // Oracle self-checks need no device; device cases share one backend.
  std::vector<std::size_t> device_lines;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const CaseLine& c = lines[i];
    if (c.run_case.kind == RunCase::Kind::device) {
      device_lines.push_back(i);
      continue;
    }
    CaseResult row = run_oracle_self_check(parse_mla_decode(c.run_case.repro));
    break_on_purpose(row.id);
    write_all(options.result_fd, encode_row_frame(c.index, row));
  }
  if (device_lines.empty()) return 0;

  BackendOrReason backend;
  try {
    backend = make_backend(options.backend, options.device);
  } catch (const std::exception& e) {
    // The supervisor checked the library; what is left is a plugin whose open() fails. Its cases
    // come back SKIPPED with why and no backend named, which the settle step makes ERRORED where
    // a backend was expected to start.
    backend = {nullptr, e.what()};
  }
  // Rows go back as the driver left them: the supervisor's side settles every row, a lost case's
  // included (plan/case_settle.hpp).
  std::vector<CaseProblem> cases;
  for (std::size_t i : device_lines) cases.push_back(parse_case(lines[i].run_case.repro));
  bool device_lost = false;
  // A lost device ends the run after its row: the remaining rows would all be errors of the
  // dead context, not of their cases. Throwing out of the callback stops run_cases.
  struct DeviceLost {};
  try {
    run_cases(cases, backend.backend.get(), backend.reason, {}, PrefetchOptions{options.lookahead},
              [&](std::size_t k, CaseResult row) {
                break_on_purpose(row.id);
                write_all(options.result_fd, encode_row_frame(lines[device_lines[k]].index, row));
                if (row.device_lost) {
                  device_lost = true;
                  throw DeviceLost{};
                }
              });
  } catch (const DeviceLost&) {
  }
  return device_lost ? kWorkerExitDeviceLost : 0;
}

}  // namespace mlacheck::cli
