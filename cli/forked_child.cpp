#include "cli/forked_child.hpp"

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

[[noreturn]] void fail_errno(const char* what) { throw std::runtime_error(std::string(what) + ": " + std::strerror(errno)); }

[[noreturn]] void child(int fd, const std::function<std::string()>& job) {
  std::string output;
  try {
    output = job();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlacheck: error in a forked case: %s\n", e.what());
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

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

ChildOutcome run_forked(const std::function<std::string()>& job, double timeout_s) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail_errno("pipe for a forked case");
  std::fflush(nullptr);  // the child's exit must not repeat buffered output
  const pid_t pid = ::fork();
  if (pid < 0) fail_errno("fork for a case");
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], job);
  }
  ::close(fds[1]);
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  ChildOutcome out;
  char chunk[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      out.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 60'000)));
    if (ready < 0 && errno != EINTR) {
      ::kill(pid, SIGKILL);
      reap(pid);
      ::close(fds[0]);
      fail_errno("poll of a forked case");
    }
    if (ready <= 0) continue;
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of file: the child is gone or about to be
    out.output.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (out.timed_out) ::kill(pid, SIGKILL);
  const int status = reap(pid);
  if (out.timed_out) {
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

}  // namespace mlacheck::cli
