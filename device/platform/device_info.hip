// Device queries through the GPU runtime (HIP, or CUDA through hip_to_cuda.hpp).
#include "device/platform/device_info.hpp"

#include "device/platform/gpu_check.hpp"

namespace mlacheck {
namespace {

#if defined(MLACHECK_GPU_HIP)
constexpr std::string_view kBackend = "hip";
constexpr std::string_view kNoDevice = "no HIP device: ";
#else
constexpr std::string_view kBackend = "cuda";
constexpr std::string_view kNoDevice = "no CUDA device: ";
#endif

}  // namespace

std::string_view gpu_backend() noexcept { return kBackend; }

DeviceAvailability probe_devices() noexcept {
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess) {
    (void)hipGetLastError();  // not a fault: keep it out of the next launch check
    return {0, std::string(kNoDevice) + hipGetErrorName(status) + " (" + hipGetErrorString(status) + ")"};
  }
  if (count == 0) return {0, std::string(kNoDevice) + "the runtime reports none"};
  return {count, ""};
}

DeviceInfo device_info(int index) {
  hipDeviceProp_t prop{};
  GPU_CHECK(hipGetDeviceProperties(&prop, index));
  DeviceInfo info;
  info.index = index;
  info.name = prop.name;
  info.arch = prop.gcnArchName;
  // The index is this process's (HIP_/CUDA_VISIBLE_DEVICES renumber); the bus id names the board.
  char bus_id[64] = {};
  GPU_CHECK(hipDeviceGetPCIBusId(bus_id, static_cast<int>(sizeof bus_id), index));
  info.pci_bus_id = bus_id;
  info.compute_units = prop.multiProcessorCount;
  info.warp_size = prop.warpSize;
  info.max_threads_per_block = prop.maxThreadsPerBlock;
  info.shared_memory_per_block = prop.sharedMemPerBlock;
  info.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.global_memory_bytes = prop.totalGlobalMem;
  return info;
}

void select_device(int index) { GPU_CHECK(hipSetDevice(index)); }

std::size_t current_device_free_bytes() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  GPU_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

}  // namespace mlacheck
