#include "cli/devices_command.hpp"

#include <cstdio>

#include "device/platform/device_info.hpp"

namespace mlacheck::cli {

void add_devices_command(CLI::App& app) {
  app.add_subcommand("devices", "List the GPU backend of this build and the devices it sees");
}

int list_devices() {
  const DeviceAvailability avail = probe_devices();
  std::printf("backend: %.*s\n", static_cast<int>(gpu_backend().size()), gpu_backend().data());
  if (avail.count == 0) {
    std::printf("devices: none (%s)\n", avail.reason.c_str());
    return 0;
  }
  for (int i = 0; i < avail.count; ++i) {
    const DeviceInfo d = device_info(i);
    std::printf("%d: %s, %s, %d compute units, warp %d, %zu KiB shared memory per block, %zu MiB L2, %zu GiB\n",
                d.index, d.name.c_str(), d.arch.c_str(), d.compute_units, d.warp_size,
                d.shared_memory_per_block / 1024, d.l2_cache_bytes >> 20, d.global_memory_bytes >> 30);
  }
  return 0;
}

}  // namespace mlacheck::cli
