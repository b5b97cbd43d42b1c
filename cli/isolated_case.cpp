#include "cli/isolated_case.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cli/supervisor.hpp"
#include "cli/worker_protocol.hpp"
#include "device/backend_factory.hpp"
#include "harness/device_outcome.hpp"
#include "harness/gather_case.hpp"
#include "harness/mla_case.hpp"

namespace mlacheck::cli {

namespace {

[[noreturn]] void fail_errno(const char* what) {
  throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

// The child's side: run, write the frame, leave without running the runtime's teardown (after a
// lost device it can hang or abort, and the row is already out).
[[noreturn]] void child(int fd, const CaseResult& stub, const std::function<CaseResult()>& job) {
  CaseResult row = stub;
  try {
    row = job();
  } catch (const std::exception& e) {
    row.state = ResultState::errored;
    row.reason = e.what();
  }
  const std::string frame = encode_row_frame(0, row);
  std::size_t done = 0;
  while (done < frame.size()) {
    const ssize_t n = ::write(fd, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(1);
    done += static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

}  // namespace

CaseResult run_in_child(const CaseResult& stub, const std::function<CaseResult()>& job) {
  int fds[2];
  if (::pipe(fds) != 0) fail_errno("pipe for a case's row");
  std::fflush(nullptr);  // the child's exit must not repeat buffered output
  const pid_t pid = ::fork();
  if (pid < 0) fail_errno("fork for a case");
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], stub, job);
  }
  ::close(fds[1]);
  std::string buffer;
  char chunk[65536];
  while (true) {
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::vector<RowFrame> frames = take_row_frames(buffer);
  if (!frames.empty()) return std::move(frames.front().row);
  CaseResult row = stub;
  row.state = ResultState::errored;
  row.reason = "the case's process died before reporting: " + describe_exit(status);
  return row;
}

CaseResult run_case_in_child(const SweepCase& c, const FaultSet& faults, int device, const std::string& backend_spec) {
  CaseResult stub;
  std::visit(
      [&](const auto& p) {
        stub.id = p.name;
        stub.repro = to_repro(p);
      },
      c);
  stub.op = stub.repro.substr(0, stub.repro.find(':'));
  stub.faults = describe_faults(faults);
  return run_in_child(stub, [&] {
    BackendOrReason backend = make_backend(backend_spec, device);
    return std::visit(
        [&](const auto& p) -> CaseResult {
          if constexpr (std::is_same_v<std::decay_t<decltype(p)>, MlaDecodeProblem>) {
            return run_mla_case(p, backend.backend.get(), backend.reason, faults);
          } else {
            return run_gather_case(p, backend.backend.get(), backend.reason, faults);
          }
        },
        c);
  });
}

ProbedDevice probe_device(int device, const std::string& backend_spec) {
  CaseResult stub;
  stub.id = "device-probe";
  const CaseResult row = run_in_child(stub, [&] {
    CaseResult out = stub;
    BackendOrReason backend = make_backend(backend_spec, device);
    out.device = backend.backend ? backend.backend->device_name() : "";
    out.reason = backend.reason;
    return out;
  });
  if (row.state == ResultState::errored) return {"", row.reason, true};
  return {row.device, row.reason, false};
}

}  // namespace mlacheck::cli
