#pragma once
// `mlacheck worker` (hidden): the process a `mlacheck run` supervisor starts per GPU. It reads
// its cases from stdin (worker_protocol.hpp), runs them through the harness with the oracle of
// the next cases prepared on other threads, and writes each row to the result fd as it finishes.
// A case whose GPU context is lost ends the process after its row (exit status 3), so the next
// case starts in a fresh one.
//
// For the supervisor's own tests, two variables break a worker on purpose at the case with the
// given id, after it ran but before its row is sent: MLACHECK_TEST_CRASH_CASE aborts the process
// (as a GPU memory fault on ROCm does), MLACHECK_TEST_HANG_CASE never returns (a hung kernel).
#include <CLI/CLI.hpp>

#include <cstddef>

namespace mlacheck::cli {

struct WorkerOptions {
  int device = 0;
  int result_fd = 1;
  std::size_t lookahead = 4;
  std::string backend = "hip";  // make_backend's spec: "hip" or a plugin's path
};

void add_worker_command(CLI::App& app, WorkerOptions& options);
int run_worker(const WorkerOptions& options);

inline constexpr int kWorkerExitDeviceLost = 3;

}  // namespace mlacheck::cli
