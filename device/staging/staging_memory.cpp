#include "device/staging/staging_memory.hpp"

#include <fstream>

#include "device/staging/device_memory.hpp"

namespace mlacheck {

std::string_view to_string(StagingMemory m) { return m == StagingMemory::host ? "host" : "device"; }

bool staging_available(StagingMemory m) { return m == StagingMemory::host || device_staging_built(); }

namespace {

// MemAvailable of /proc/meminfo in bytes, or nullopt where there is none.
std::optional<std::uint64_t> host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> memory_shortfall(StagingMemory m, std::uint64_t bytes, std::uint64_t free_bytes) {
  const std::uint64_t usable = m == StagingMemory::host ? free_bytes / 2 : free_bytes / 10 * 9;
  if (bytes <= usable) return std::nullopt;
  return "needs about " + std::to_string(bytes >> 20) + " MiB of " + std::string(to_string(m)) + " memory, " +
         std::to_string(free_bytes >> 20) + " MiB are free";
}

std::optional<std::string> staging_memory_shortfall(StagingMemory m, std::uint64_t bytes) {
  const std::optional<std::uint64_t> free_bytes =
      m == StagingMemory::host ? host_available_bytes() : device_free_bytes();
  if (!free_bytes) return std::nullopt;
  return memory_shortfall(m, bytes, *free_bytes);
}

}  // namespace mlacheck
