#include "cli/forked_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "cli/supervisor.hpp"

namespace mlacheck::cli {

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail_errno(const char* what) {
  throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

struct Running {
  std::size_t index = 0;
  pid_t pid = -1;
  int fd = -1;
  Clock::time_point deadline;
  ChildOutcome outcome;
};

[[noreturn]] void child(int fd, const std::function<std::string()>& job) {
  std::string output;
  try {
    output = job();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlacheck: error in a forked job: %s\n", e.what());
    ::_exit(1);
  } catch (...) {
    ::_exit(1);
  }
  std::size_t done = 0;
  while (done < output.size()) {
    const ssize_t n = ::write(fd, output.data() + done, output.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(1);
    done += static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

Running start(std::size_t index, const ForkedJob& job, const std::vector<Running>& siblings) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail_errno("pipe for a forked job");
  std::fflush(nullptr);  // the child's exit must not repeat buffered output
  const pid_t pid = ::fork();
  if (pid < 0) fail_errno("fork for a job");
  if (pid == 0) {
    ::close(fds[0]);
    for (const Running& r : siblings) ::close(r.fd);
    child(fds[1], job.run);
  }
  ::close(fds[1]);
  Running r;
  r.index = index;
  r.pid = pid;
  r.fd = fds[0];
  r.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(job.timeout_s));
  return r;
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// The child's pipe is closed (end of file) or its deadline passed: reap it and say how it ended.
ChildOutcome finish(Running& r, bool timed_out, double timeout_s) {
  ::close(r.fd);
  if (timed_out) ::kill(r.pid, SIGKILL);
  const int status = reap(r.pid);
  ChildOutcome out = std::move(r.outcome);
  if (timed_out) {
    out.timed_out = true;
    out.output.clear();
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", timeout_s);
    out.ended = std::string("after ") + limit + " s";
    return out;
  }
  out.reported = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!out.reported) {
    out.output.clear();
    out.ended = describe_exit(status);
  }
  return out;
}

}  // namespace

void run_forked_pool(const std::vector<ForkedJob>& jobs, std::size_t parallel,
                     const std::function<void(std::size_t, ChildOutcome)>& on_done) {
  parallel = std::max<std::size_t>(parallel, 1);
  std::vector<Running> running;
  std::size_t next = 0;
  char chunk[65536];
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && running.size() < parallel) {
      running.push_back(start(next, jobs[next], running));
      ++next;
    }
    const Clock::time_point now = Clock::now();
    long long wait_ms = 60'000;
    for (const Running& r : running) {
      wait_ms =
          std::min<long long>(wait_ms, std::chrono::duration_cast<std::chrono::milliseconds>(r.deadline - now).count());
    }
    std::vector<pollfd> fds;
    for (const Running& r : running) fds.push_back({r.fd, POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(wait_ms, 0)));
    if (ready < 0 && errno != EINTR) {
      for (Running& r : running) {
        ::kill(r.pid, SIGKILL);
        reap(r.pid);
        ::close(r.fd);
      }
      fail_errno("poll of forked jobs");
    }
    // Read what arrived; a child whose pipe closed, or whose deadline passed, is done.
    std::vector<Running> still;
    for (std::size_t k = 0; k < running.size(); ++k) {
      Running& r = running[k];
      bool ended = false;
      if (ready > 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
        const ssize_t n = ::read(r.fd, chunk, sizeof chunk);
        if (n > 0) {
          r.outcome.output.append(chunk, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          ended = true;
        }
      }
      const bool timed_out = !ended && Clock::now() >= r.deadline;
      if (ended || timed_out) {
        on_done(r.index, finish(r, timed_out, jobs[r.index].timeout_s));
      } else {
        still.push_back(std::move(r));
      }
    }
    running = std::move(still);
  }
}

}  // namespace mlacheck::cli
