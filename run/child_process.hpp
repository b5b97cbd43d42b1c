#pragma once
// Forked child processes: the process layer under run/isolated_cases.hpp (every command that runs
// a case in a process of its own) and the device probe (cli/device_preflight.hpp). The caller
// must not have started the GPU runtime itself: a forked child inherits no usable context and
// makes its own. A child leaves with _exit, skipping the GPU runtime's teardown (after a lost
// device it can hang or abort, and its answer is already out).
#include <sys/types.h>

#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace mlacheck {

struct Child {
  pid_t pid = -1;
  int fd = -1;  // the read end of the pipe the child writes its answer to
};

// Forks; the child closes `inherited` (the pipes of its siblings, so each one's end of file comes
// when that sibling ends), runs job(write fd) and exits 0, or 1 when the job throws (the message
// goes to stderr). Throws std::runtime_error when the pipe or the fork fails.
Child fork_child(const std::function<void(int)>& job, std::span<const int> inherited = {});

// Waits for the child and returns its waitpid status; closes its pipe.
int reap(Child& child);
// SIGKILL, then reap.
int kill_and_reap(Child& child);

// Writes all of `bytes` to `fd`; false when the reader is gone.
bool write_all(int fd, std::string_view bytes);

// "signal 6 (Aborted)" or "exit status 1", from a waitpid status.
std::string describe_exit(int wait_status);

struct ChildOutcome {
  bool reported = false;  // the job returned and its output arrived whole
  std::string output;     // what the job returned
  bool timed_out = false;
  // When not reported: how the child ended ("signal 11 (Segmentation fault)", "exit status 1"),
  // or, after a timeout, the limit ("after 120 s").
  std::string ended;
};

// One job's answer from a forked child under a watchdog of `timeout_s` (the device probe: an
// answer, not a case). A child still running at the limit is killed and reaped.
ChildOutcome run_forked(const std::function<std::string()>& job, double timeout_s);

}  // namespace mlacheck
