#include "run/isolated_cases.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <thread>

#include "run/child_process.hpp"
#include "run/row_frames.hpp"
#include "device/backend_factory.hpp"
#include "harness/device_outcome.hpp"
#include "harness/lost_case.hpp"
#include "harness/op_registry.hpp"

namespace mlacheck {

namespace {

using Clock = std::chrono::steady_clock;

bool env_names(const char* var, const std::string& id) {
  const char* v = std::getenv(var);
  return v != nullptr && id == v;
}

// The deliberate breakages of isolated_cases.hpp, for the tests.
void break_on_purpose(const std::string& id) {
  if (env_names("MLACHECK_TEST_CRASH_CASE", id)) std::abort();
  if (env_names("MLACHECK_TEST_HANG_CASE", id)) {
    while (true) std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

struct Process {
  std::size_t slot = 0;
  std::deque<std::size_t> pending;  // case indices without a row yet, in the order the job runs them
  Child child;
  std::string buffer;  // bytes of a frame not yet whole
  Clock::time_point deadline;
  bool sent_rows = false;  // this process (not an earlier one of the slot) sent a row
  bool running() const { return child.pid > 0; }
};

class Isolation {
 public:
  Isolation(const std::vector<IsolatedCase>& cases, const IsolatedJob& job, const IsolationOptions& options,
            const std::function<void(std::size_t, CaseResult)>& on_row)
      : cases_(cases), job_(job), options_(options), on_row_(on_row) {}

  void run() {
    const std::size_t group = std::max<std::size_t>(options_.group, 1);
    const std::size_t groups = (cases_.size() + group - 1) / group;
    processes_.resize(std::min(std::max<std::size_t>(options_.processes, 1), groups));
    for (std::size_t k = 0; k < processes_.size(); ++k) processes_[k].slot = k;
    for (std::size_t i = 0; i < cases_.size(); ++i) processes_[(i / group) % processes_.size()].pending.push_back(i);
    try {
      for (Process& p : processes_) start(p);
      while (poll_once()) {
      }
    } catch (...) {
      for (Process& p : processes_) {
        if (p.running()) kill_and_reap(p.child);
      }
      throw;
    }
  }

 private:
  void arm(Process& p) {
    if (p.pending.empty()) return;
    p.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(cases_[p.pending.front()].timeout_s));
  }

  void start(Process& p) {
    if (p.pending.empty()) return;
    std::vector<int> siblings;
    for (const Process& other : processes_) {
      if (other.running()) siblings.push_back(other.child.fd);
    }
    const std::vector<std::size_t> todo(p.pending.begin(), p.pending.end());
    const std::size_t slot = p.slot;
    p.child = fork_child(
        [&](int fd) {
          const RowSender send = [&](std::size_t index, const CaseResult& row) {
            break_on_purpose(index < cases_.size() ? cases_[index].stub.id : row.id);
            if (!write_all(fd, encode_row_frame(index, row))) {
              std::fprintf(stderr, "mlacheck: a case's process lost its parent\n");
              std::_Exit(1);
            }
          };
          job_(slot, todo, send);
        },
        siblings);
    p.buffer.clear();
    p.sent_rows = false;
    arm(p);
  }

  void lose_front(Process& p, ErrorKind kind, const std::string& reason) {
    const std::size_t i = p.pending.front();
    p.pending.pop_front();
    on_row_(i, lost_case_row(cases_[i].stub, kind, reason));
  }

  void take_rows(Process& p) {
    for (RowFrame& f : take_row_frames(p.buffer)) {
      // Rows come in the order sent; a case before this one was skipped and has no row.
      while (!p.pending.empty() && p.pending.front() != f.index) {
        lose_front(p, ErrorKind::harness_error, options_.process_name + " skipped this case");
      }
      if (p.pending.empty()) throw std::runtime_error("a row of a case not given to this process");
      p.pending.pop_front();
      p.sent_rows = true;
      // The plan's id, whatever the job wrote: resume and merge key on it.
      f.row.id = cases_[f.index].stub.id;
      on_row_(f.index, std::move(f.row));
    }
    arm(p);
  }

  // The process's pipe reached its end: it exited. With cases left, the first is what it died
  // on, unless it stopped on purpose after a row (a lost device): then a fresh one goes on.
  void ended(Process& p) {
    const int status = reap(p.child);
    const bool stopped_on_purpose = WIFEXITED(status) && WEXITSTATUS(status) == 0 && p.sent_rows;
    if (!p.pending.empty() && !stopped_on_purpose) {
      lose_front(p, ErrorKind::crashed, process_died_reason(options_.process_name, describe_exit(status)));
    }
    start(p);
  }

  // Waits for rows, ends or deadlines once; false when every process is done.
  bool poll_once() {
    std::vector<pollfd> fds;
    std::vector<Process*> owners;
    auto wait = Clock::duration::max();
    for (Process& p : processes_) {
      if (!p.running()) continue;
      fds.push_back({p.child.fd, POLLIN, 0});
      owners.push_back(&p);
      wait = std::min(wait, p.deadline - Clock::now());
    }
    if (fds.empty()) return false;
    const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wait).count();
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(wait_ms, 0, 60'000)));
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("poll of case processes: ") + std::strerror(errno));
    char chunk[65536];
    for (std::size_t k = 0; k < fds.size(); ++k) {
      Process& p = *owners[k];
      if (ready > 0 && fds[k].revents != 0) {
        const ssize_t n = ::read(p.child.fd, chunk, sizeof chunk);
        if (n > 0) {
          p.buffer.append(chunk, static_cast<std::size_t>(n));
          try {
            take_rows(p);
          } catch (const std::exception& e) {
            kill_and_reap(p.child);
            if (!p.pending.empty()) lose_front(p, ErrorKind::crashed, process_died_reason(options_.process_name, std::string("a garbled row: ") + e.what()));
            start(p);
          }
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        ended(p);
        continue;
      }
      if (Clock::now() >= p.deadline && !p.pending.empty()) {
        kill_and_reap(p.child);
        lose_front(p, ErrorKind::timed_out, watchdog_reason(cases_[p.pending.front()].timeout_s, options_.process_name));
        start(p);
      }
    }
    return true;
  }

  const std::vector<IsolatedCase>& cases_;
  const IsolatedJob& job_;
  const IsolationOptions& options_;
  const std::function<void(std::size_t, CaseResult)>& on_row_;
  std::vector<Process> processes_;
};

}  // namespace

CaseResult lost_case_row(const CaseResult& stub, ErrorKind kind, const std::string& reason) {
  CaseResult row = stub;
  set_errored(row, kind, reason);
  return row;
}

void run_isolated(const std::vector<IsolatedCase>& cases, const IsolatedJob& job, const IsolationOptions& options,
                  const std::function<void(std::size_t, CaseResult)>& on_row) {
  if (cases.empty()) return;
  Isolation(cases, job, options, on_row).run();
}

CaseResult run_isolated_case(const IsolatedCase& c, const std::function<CaseResult()>& job) {
  CaseResult out;
  run_isolated(
      {c},
      [&](std::size_t, std::span<const std::size_t>, const RowSender& send) {
        CaseResult row = c.stub;
        try {
          row = job();
        } catch (const std::exception& e) {
          set_errored(row, ErrorKind::harness_error, e.what());
        }
        send(0, row);
      },
      IsolationOptions{}, [&](std::size_t, CaseResult row) { out = std::move(row); });
  return out;
}

CaseResult run_case_isolated(const CaseProblem& c, const FaultSet& faults, int device, double timeout_s,
                             const std::string& backend_spec) {
  IsolatedCase isolated;
  isolated.timeout_s = timeout_s;
  CaseResult& stub = isolated.stub;
  stub.id = case_name(c);
  stub.op = std::string(op_name(c));
  stub.repro = to_repro(c);
  stub.faults = describe_faults(faults);
  return run_isolated_case(isolated, [&] {
    BackendOrReason backend = make_backend(backend_spec, device);
    CaseResult row = stub;
    run_cases({c}, backend.backend.get(), backend.reason, faults, PrefetchOptions{0},
              [&](std::size_t, CaseResult r) { row = std::move(r); });
    return row;
  });
}

}  // namespace mlacheck
