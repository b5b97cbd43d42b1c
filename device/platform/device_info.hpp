// Which GPU backend this build has, whether a device is present (and why not), and what a
// device looks like to the planner and the kernels. No GPU types: host code includes this.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mlacheck {

// "hip", "cuda" or "none" (built without GPU support).
std::string_view gpu_backend() noexcept;

struct DeviceAvailability {
  int count = 0;
  std::string reason;  // why count is 0, for SKIPPED rows; empty when a device is present
};

// Never throws: a missing GPU, driver or backend is an answer here, not an error.
DeviceAvailability probe_devices() noexcept;
inline int device_count() noexcept { return probe_devices().count; }

struct DeviceInfo {
  int index = 0;
  std::string name;       // marketing name, e.g. "AMD Instinct MI300X", "NVIDIA H100 80GB HBM3"
  std::string arch;       // compilation target, e.g. "gfx942:sramecc+:xnack-", "sm_90"
  std::string pci_bus_id;  // domain:bus:device.function, e.g. "0000:18:00.0": which physical GPU
  int compute_units = 0;  // CUs on AMD, SMs on NVIDIA: what work is split across
  int warp_size = 0;      // 64 on CDNA, 32 on NVIDIA and RDNA; never assume either
  int max_threads_per_block = 0;
  std::size_t shared_memory_per_block = 0;  // bytes of LDS / shared memory a block may use
  std::size_t l2_cache_bytes = 0;
  std::size_t global_memory_bytes = 0;
};

// Throws GpuError when the device cannot be queried (including builds without a backend).
DeviceInfo device_info(int index = 0);

// Makes GPU `index` the calling thread's current device (runtimes keep it per thread), so the
// allocations and launches that follow go there. Throws GpuError.
void select_device(int index);

// Free memory of the calling thread's current GPU in bytes, as the runtime reports it now (other
// processes and this one's allocations taken). Throws GpuError.
std::size_t current_device_free_bytes();

}  // namespace mlacheck
