#include "device/staging/staging_memory.hpp"

#include "device/staging/device_memory.hpp"

namespace mlacheck {

std::string_view to_string(StagingMemory m) { return m == StagingMemory::host ? "host" : "device"; }

bool staging_available(StagingMemory m) { return m == StagingMemory::host || device_staging_built(); }

}  // namespace mlacheck
