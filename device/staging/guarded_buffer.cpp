#include "device/staging/guarded_buffer.hpp"

#include "device/staging/device_memory.hpp"
#include "device/staging/host_guarded_buffer.hpp"

namespace mlacheck {

std::unique_ptr<GuardedBuffer> make_guarded_buffer(StagingMemory memory, std::string name, std::size_t bytes) {
  if (memory == StagingMemory::host) return std::make_unique<HostGuardedBuffer>(std::move(name), bytes);
  return make_device_guarded_buffer(std::move(name), bytes);
}

}  // namespace mlacheck
