#include "cli/supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <stdexcept>

#include "cli/worker_command.hpp"
#include "cli/worker_protocol.hpp"
#include "harness/lost_case.hpp"
#include "harness/op_registry.hpp"

namespace mlacheck::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Worker {
  int device = 0;
  std::deque<std::size_t> pending;  // case indices not yet reported, in the order sent
  pid_t pid = -1;
  int result_fd = -1;
  std::string buffer;
  Clock::time_point deadline;
};

[[noreturn]] void fail_errno(const char* what) { throw std::runtime_error(std::string(what) + ": " + std::strerror(errno)); }

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the worker died while reading; its exit is handled by the poll loop
    done += static_cast<std::size_t>(n);
  }
}

void arm_deadline(Worker& w, const std::vector<RunCase>& cases) {
  if (w.pending.empty()) return;
  w.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(cases[w.pending.front()].timeout_s));
}

void start(Worker& w, const std::vector<RunCase>& cases, const SupervisorOptions& options) {
  int to_worker[2];
  int from_worker[2];
  if (::pipe2(to_worker, O_CLOEXEC) != 0) fail_errno("pipe for worker cases");
  if (::pipe2(from_worker, O_CLOEXEC) != 0) fail_errno("pipe for worker rows");
  const std::string device = std::to_string(w.device);
  const std::string lookahead = std::to_string(options.lookahead);
  const pid_t pid = ::fork();
  if (pid < 0) fail_errno("fork of a worker");
  if (pid == 0) {
    // Child: cases on stdin, rows on fd 3; stdout and stderr stay the supervisor's.
    ::dup2(to_worker[0], STDIN_FILENO);
    ::dup2(from_worker[1], 3);
    const char* argv[] = {options.executable.c_str(), "worker", "--device", device.c_str(), "--result-fd", "3",
                          "--lookahead", lookahead.c_str(), "--backend", options.backend.c_str(), nullptr};
    ::execv(options.executable.c_str(), const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(to_worker[0]);
  ::close(from_worker[1]);
  w.pid = pid;
  w.result_fd = from_worker[0];
  w.buffer.clear();
  std::string lines;
  for (std::size_t i : w.pending) lines += encode_case_line(i, cases[i]);
  write_all(to_worker[1], lines);
  ::close(to_worker[1]);
  arm_deadline(w, cases);
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

void stop(Worker& w) {
  ::close(w.result_fd);
  w.result_fd = -1;
  w.pid = -1;
}

}  // namespace

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "wait status " + std::to_string(status);
}

CaseResult lost_case_row(const RunCase& c, const std::string& reason) {
  CaseResult row;
  row.id = c.id;
  row.op = std::string(op_of_repro(c.repro));
  row.repro = c.repro;
  row.state = ResultState::errored;
  row.reason = reason;
  return row;
}

void supervise(const std::vector<RunCase>& cases, const SupervisorOptions& options,
               const std::function<void(std::size_t, CaseResult)>& on_row) {
  // A worker that dies while we write its cases must not kill us with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  std::vector<int> devices = options.devices.empty() ? std::vector<int>{0} : options.devices;
  std::vector<Worker> workers(devices.size());
  for (std::size_t k = 0; k < workers.size(); ++k) workers[k].device = devices[k];
  for (std::size_t i = 0; i < cases.size(); ++i) workers[i % workers.size()].pending.push_back(i);
  for (Worker& w : workers) {
    if (!w.pending.empty()) start(w, cases, options);
  }

  const auto lose_front = [&](Worker& w, const std::string& reason) {
    const std::size_t i = w.pending.front();
    w.pending.pop_front();
    on_row(i, lost_case_row(cases[i], reason));
  };

  while (true) {
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    auto wait = Clock::duration::max();
    for (Worker& w : workers) {
      if (w.pid < 0) continue;
      fds.push_back({w.result_fd, POLLIN, 0});
      owners.push_back(&w);
      wait = std::min(wait, w.deadline - Clock::now());
    }
    if (fds.empty()) break;
    const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wait).count();
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(wait_ms, 0, 60'000)));
    if (ready < 0 && errno != EINTR) fail_errno("poll of the workers");

    for (std::size_t k = 0; k < fds.size(); ++k) {
      Worker& w = *owners[k];
      if (fds[k].revents != 0) {
        char chunk[65536];
        const ssize_t n = ::read(w.result_fd, chunk, sizeof chunk);
        if (n > 0) {
          w.buffer.append(chunk, static_cast<std::size_t>(n));
          for (RowFrame& f : take_row_frames(w.buffer)) {
            // Rows come in the order sent; anything before this one was lost with no row.
            while (!w.pending.empty() && w.pending.front() != f.index) lose_front(w, "the worker skipped this case");
            if (!w.pending.empty()) w.pending.pop_front();
            // The plan's id, whatever the worker wrote: resume and merge key on it.
            if (f.index < cases.size()) f.row.id = cases[f.index].id;
            on_row(f.index, std::move(f.row));
          }
          arm_deadline(w, cases);
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        // End of file: the worker exited. With cases left, the first one is what it died on,
        // unless it ended on purpose after a lost device (that case already has its row).
        const int status = reap(w.pid);
        stop(w);
        const bool device_lost_exit = WIFEXITED(status) && WEXITSTATUS(status) == kWorkerExitDeviceLost;
        if (!w.pending.empty() && !device_lost_exit) {
          lose_front(w, process_died_reason("the worker process", describe_exit(status)));
        }
        if (!w.pending.empty()) start(w, cases, options);
        continue;
      }
      if (Clock::now() >= w.deadline && !w.pending.empty()) {
        ::kill(w.pid, SIGKILL);
        reap(w.pid);
        stop(w);
        const double limit = cases[w.pending.front()].timeout_s;
        lose_front(w, watchdog_reason(limit, "the worker"));
        if (!w.pending.empty()) start(w, cases, options);
      }
    }
  }
}

}  // namespace mlacheck::cli
