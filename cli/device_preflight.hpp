#pragma once
// Which GPUs a command runs on, decided before any case runs, so that a broken setup is an error
// (exit status 2) and never a run of SKIPPED rows that reads as green:
//   - --device N for a GPU that does not exist, a backend that cannot start on a GPU the machine
//     has, or a device probe that crashes or hangs: PreflightError;
//   - no GPU at all (none in the machine, or a build without a GPU backend): no devices, and the
//     reason, for the SKIPPED rows and for a summary that says nothing was checked on a device.
// The probe runs in a forked child under a watchdog: the command's own process never starts the
// GPU runtime (it goes on to fork the processes that run the cases), and a probe that crashes
// costs nothing.
//
// For the tests, MLACHECK_TEST_CRASH_DEVICE_PROBE=1 makes the probe's child abort, as a driver
// that faults during initialisation does.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlacheck::cli {

class PreflightError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the probe found: the GPUs the runtime sees and, for each one asked about, whether the
// backend starts on it.
struct GpuCensus {
  int count = 0;
  std::string none_reason;  // why count is 0
  struct Gpu {
    int index = 0;
    bool usable = false;
    std::string name_or_reason;  // the device's name, or why the backend cannot start on it
  };
  std::vector<Gpu> probed;
};

struct DevicePlan {
  std::vector<int> devices;         // the GPUs to run on; empty when there is none
  std::vector<std::string> names;   // one per device
  std::string no_gpu_reason;        // when devices is empty: why (SKIPPED rows carry it)
};

// The decision, from a census: `requested` (--device) or every GPU the census saw. Throws
// PreflightError for a requested GPU beyond the census's count or one the backend cannot start on.
DevicePlan plan_devices(const std::optional<int>& requested, const GpuCensus& census);

// Text between the probe's child and this process (one line per field set; tabs and line breaks
// in names and reasons become spaces).
std::string encode_census(const GpuCensus& census);
GpuCensus decode_census(const std::string& text);

// Probes `requested` (or every GPU) in a forked child with a watchdog of `timeout_s`, starting the
// backend `backend_spec` names on each (device/backend_factory.hpp), then plan_devices. Throws
// PreflightError when the probe crashes or hangs. A plugin that runs in host memory needs no GPU:
// its plan is one worker (device 0, "cpu"), and no probe runs.
DevicePlan preflight_devices(const std::optional<int>& requested, const std::string& backend_spec = "hip",
                             double timeout_s = 120.0);

}  // namespace mlacheck::cli
