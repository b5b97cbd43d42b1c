#include "run/child_process.hpp"

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

namespace mlacheck {

namespace {

[[noreturn]] void fail_errno(const char* what) { throw std::runtime_error(std::string(what) + ": " + std::strerror(errno)); }

}  // namespace

Child fork_child(const std::function<void(int)>& job, std::span<const int> inherited) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail_errno("pipe for a child process");
  std::fflush(nullptr);  // the child's exit must not repeat buffered output
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    fail_errno("fork of a child process");
  }
  if (pid == 0) {
    ::close(fds[0]);
    for (int fd : inherited) ::close(fd);
    try {
      job(fds[1]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mlacheck: error in a child process: %s\n", e.what());
      ::_exit(1);
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

int reap(Child& child) {
  if (child.fd >= 0) ::close(child.fd);
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  child = Child{};
  return status;
}

int kill_and_reap(Child& child) {
  ::kill(child.pid, SIGKILL);
  return reap(child);
}

bool write_all(int fd, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "wait status " + std::to_string(status);
}

ChildOutcome run_forked(const std::function<std::string()>& job, double timeout_s) {
  Child child = fork_child([&](int fd) {
    if (!write_all(fd, job())) ::_exit(1);
  });
  using Clock = std::chrono::steady_clock;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  ChildOutcome out;
  char chunk[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      kill_and_reap(child);
      out.timed_out = true;
      out.output.clear();
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", timeout_s);
      out.ended = std::string("after ") + limit + " s";
      return out;
    }
    pollfd p{child.fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 60'000)));
    if (ready < 0 && errno != EINTR) {
      kill_and_reap(child);
      fail_errno("poll of a child process");
    }
    if (ready <= 0) continue;
    const ssize_t n = ::read(child.fd, chunk, sizeof chunk);
    if (n > 0) {
      out.output.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const int status = reap(child);  // end of file: the child is done
    out.reported = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!out.reported) {
      out.output.clear();
      out.ended = describe_exit(status);
    }
    return out;
  }
}

}  // namespace mlacheck
