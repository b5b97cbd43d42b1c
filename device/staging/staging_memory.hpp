#pragma once
// Where a backend's tensors live: device memory of the current GPU, or host memory (CPU backends,
// and the ABI path in builds without a GPU). Both flavours are staged, poisoned and guarded by the
// same code (guarded_buffer.hpp), so every backend is judged by the same machinery.
#include <cstdint>
#include <string_view>

namespace mlacheck {

enum class StagingMemory : std::uint8_t { host, device };

// "host" or "device".
std::string_view to_string(StagingMemory m);

// True when this build can stage in `m` (device memory needs a GPU backend in the build).
bool staging_available(StagingMemory m);

}  // namespace mlacheck
