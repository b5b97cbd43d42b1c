// make_hip_backend for builds without a GPU backend: every device case is SKIPPED with the reason.
#include "device/backend.hpp"
#include "device/platform/device_info.hpp"

namespace mlacheck {

BackendOrReason make_hip_backend(int) { return {nullptr, probe_devices().reason}; }

}  // namespace mlacheck
