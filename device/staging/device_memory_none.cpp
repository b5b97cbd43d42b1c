// Device staging in a build without a GPU backend: refused, naming why there is none.
#include <stdexcept>

#include "device/platform/device_info.hpp"
#include "device/staging/device_memory.hpp"

namespace mlacheck {

bool device_staging_built() noexcept { return false; }

std::unique_ptr<GuardedBuffer> make_device_guarded_buffer(std::string name, std::size_t) {
  throw std::invalid_argument("cannot stage '" + name + "' in device memory: " + probe_devices().reason);
}

std::optional<std::uint64_t> device_free_bytes() { return std::nullopt; }

}  // namespace mlacheck
