#pragma once
// The device flavour of GuardedBuffer, behind a function so that the staging library links in every
// configuration: device_memory_gpu.cpp wraps DeviceBuffer, device_memory_none.cpp (builds without a
// GPU backend) refuses with the reason there is none.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "device/staging/guarded_buffer.hpp"

namespace mlacheck {

bool device_staging_built() noexcept;
std::unique_ptr<GuardedBuffer> make_device_guarded_buffer(std::string name, std::size_t bytes);
// Free memory of the current GPU in bytes; nullopt in a build without a GPU backend.
std::optional<std::uint64_t> device_free_bytes();

}  // namespace mlacheck
