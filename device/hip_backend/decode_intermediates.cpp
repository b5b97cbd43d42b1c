#include "device/hip_backend/decode_intermediates.hpp"

#include <stdexcept>

#include "device/hip_backend/stream_copy.hpp"

namespace mlacheck {

void* GuardedIntermediates::output(std::string_view name, DType t, std::size_t count) {
  return set_.output(std::string(name), t, count).data();
}

std::int32_t* GuardedIntermediates::indices(std::string_view name, std::size_t count) {
  return set_.indices(std::string(name), count).as<std::int32_t>();
}

const std::int32_t* GuardedIntermediates::input(std::string_view name, std::span<const std::int32_t> host) {
  return set_.input(std::string(name), host).as<std::int32_t>();
}

WorkspaceIntermediates::WorkspaceIntermediates(void* workspace, std::uint64_t bytes, StreamHandle stream)
    : base_(static_cast<std::byte*>(workspace)), capacity_(bytes), stream_(stream) {
  if (workspace == nullptr && bytes > 0) {
    throw std::invalid_argument("workspace intermediates: a null workspace of " + std::to_string(bytes) + " bytes");
  }
}

WorkspaceIntermediates WorkspaceIntermediates::measuring() { return WorkspaceIntermediates(Measuring{}); }

std::byte* WorkspaceIntermediates::carve(std::string_view name, std::size_t bytes) {
  const std::uint64_t offset = (used_ + kAlignment - 1) / kAlignment * kAlignment;
  const std::uint64_t end = offset + bytes;
  if (measuring_) {
    used_ = end;
    return nullptr;
  }
  if (end > capacity_) {
    throw std::length_error("workspace intermediates: '" + std::string(name) + "' needs bytes [" +
                            std::to_string(offset) + ", " + std::to_string(end) + ") of a workspace of " +
                            std::to_string(capacity_));
  }
  used_ = end;
  return base_ + offset;
}

void* WorkspaceIntermediates::output(std::string_view name, DType t, std::size_t count) {
  return carve(name, count * storage_bytes(t));
}

std::int32_t* WorkspaceIntermediates::indices(std::string_view name, std::size_t count) {
  return reinterpret_cast<std::int32_t*>(carve(name, count * sizeof(std::int32_t)));
}

const std::int32_t* WorkspaceIntermediates::input(std::string_view name, std::span<const std::int32_t> host) {
  auto* dst = reinterpret_cast<std::int32_t*>(carve(name, host.size_bytes()));
  if (dst == nullptr || host.empty()) return dst;
  const std::vector<std::int32_t>& kept = host_copies_.emplace_back(host.begin(), host.end());
  copy_to_device_async(dst, kept.data(), host.size_bytes(), stream_);
  return dst;
}

}  // namespace mlacheck
