#pragma once
// Where a backend's tensors live: device memory of the current GPU, or host memory (CPU backends,
// and the ABI path in builds without a GPU). Both flavours are staged, poisoned and guarded by the
// same code (guarded_buffer.hpp), so every backend is judged by the same machinery.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mlacheck {

enum class StagingMemory : std::uint8_t { host, device };

// "host" or "device".
std::string_view to_string(StagingMemory m);

// True when this build can stage in `m` (device memory needs a GPU backend in the build).
bool staging_available(StagingMemory m);

// Why `bytes` cannot be staged in `m` now, or nullopt: host memory against the kernel's
// MemAvailable, device memory against the current GPU's free memory (memory_shortfall's rule).
// nullopt when the amount cannot be read (the allocation then decides). A case that lacks memory is
// SKIPPED, never failed (Backend::lacks_memory).
std::optional<std::string> staging_memory_shortfall(StagingMemory m, std::uint64_t bytes);

// The rule on its own, for `free_bytes` free in `m`. Device memory keeps a tenth back for the
// runtime. Host memory keeps half back: the oracle, the prefetched inputs, the plugin itself and
// other processes (a parallel ctest runs several runs at once) share it, and an over-committed host
// answers with the OOM killer's SIGKILL, not with a failed allocation -- a 17 GiB pool admitted
// against 90% of a 24 GiB machine's MemAvailable was killed that way.
std::optional<std::string> memory_shortfall(StagingMemory m, std::uint64_t bytes, std::uint64_t free_bytes);

}  // namespace mlacheck
