#pragma once
// A job in a forked child process under a watchdog, for the commands that fork per case
// (scenarios, mutate) and for the device probe of `mlacheck run`: a crash, a lost device or a hang
// in the child costs the caller one answer, never the whole command. The caller must not have
// started the GPU runtime itself: a forked child inherits no usable context and makes its own.
#include <functional>
#include <string>

namespace mlacheck::cli {

struct ChildOutcome {
  bool reported = false;  // the job returned and its output arrived whole
  std::string output;     // what the job returned
  bool timed_out = false;
  // When not reported: how the child ended ("signal 11 (Segmentation fault)", "exit status 1"),
  // or, after a timeout, the limit ("after 120 s").
  std::string ended;
};

// Forks, runs `job` in the child and hands its result to this process through a pipe. A child
// still running after `timeout_s` seconds is killed (SIGKILL) and reaped. The child leaves with
// _exit, skipping the GPU runtime's teardown (after a lost device it can hang or abort, and the
// answer is already out). An exception from the job counts as the child dying (exit status 1).
ChildOutcome run_forked(const std::function<std::string()>& job, double timeout_s);

}  // namespace mlacheck::cli
