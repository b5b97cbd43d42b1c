// Device queries of a build without a GPU backend: there is never a device, and the reason says
// why the backend was left out (MLACHECK_GPU_NONE_REASON comes from cmake/MlacheckGpu.cmake).
#include "device/platform/device_info.hpp"
#include "device/platform/gpu_error.hpp"

namespace mlacheck {
namespace {
constexpr std::string_view kNoGpuBuild = "built without GPU support (" MLACHECK_GPU_NONE_REASON ")";
}

std::string_view gpu_backend() noexcept { return "none"; }

DeviceAvailability probe_devices() noexcept { return {0, std::string(kNoGpuBuild)}; }

DeviceInfo device_info(int index) {
  throw GpuError("device_info(" + std::to_string(index) + "): " + std::string(kNoGpuBuild), 0, false);
}

std::size_t current_device_free_bytes() {
  throw GpuError("current_device_free_bytes(): " + std::string(kNoGpuBuild), 0, false);
}

void select_device(int index) {
  throw GpuError("select_device(" + std::to_string(index) + "): " + std::string(kNoGpuBuild), 0, false);
}

}  // namespace mlacheck
