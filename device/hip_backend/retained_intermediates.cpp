#include "device/hip_backend/retained_intermediates.hpp"

#include <algorithm>
#include <stdexcept>

namespace mlacheck {

void SizingIntermediates::record(std::string_view name, IntermediateKind kind, DType t, std::size_t bytes) {
  auto it = needs_.find(name);
  if (it == needs_.end()) {
    needs_.emplace(std::string(name), IntermediateNeed{kind, t, bytes});
    return;
  }
  it->second.bytes = std::max(it->second.bytes, bytes);
}

void* SizingIntermediates::output(std::string_view name, DType t, std::size_t count) {
  record(name, IntermediateKind::output, t, count * storage_bytes(t));
  return nullptr;
}

std::int32_t* SizingIntermediates::indices(std::string_view name, std::size_t count) {
  record(name, IntermediateKind::indices, DType::f32, count * sizeof(std::int32_t));
  return nullptr;
}

const std::int32_t* SizingIntermediates::input(std::string_view name, std::span<const std::int32_t> host) {
  record(name, IntermediateKind::input, DType::f32, host.size_bytes());
  return nullptr;
}

void RetainedIntermediates::reserve(const SizingIntermediates& sizes) {
  for (const auto& [name, need] : sizes.needs()) {
    if (held_.find(name) == held_.end()) hold(name, need.kind, need.dtype, need.bytes);
  }
}

GuardedBuffer& RetainedIntermediates::hold(std::string_view name, IntermediateKind kind, DType t, std::size_t bytes) {
  if (auto it = held_.find(name); it != held_.end()) {
    GuardedBuffer& b = *it->second;
    if (bytes > b.bytes()) {
      throw std::length_error("retained intermediates: '" + std::string(name) + "' at step " + std::to_string(step_) +
                              " needs " + std::to_string(bytes) + " bytes, the buffer kept across the sequence holds " +
                              std::to_string(b.bytes()));
    }
    return b;
  }
  // Allocated once with the set's own poisoning; an output's poison words must tile its bytes.
  GuardedBuffer* b = nullptr;
  switch (kind) {
    case IntermediateKind::output:
      b = &set_.output(std::string(name), t, bytes / storage_bytes(t));
      break;
    case IntermediateKind::indices:
    case IntermediateKind::input:
      b = &set_.indices(std::string(name), bytes / sizeof(std::int32_t));
      break;
  }
  held_.emplace(std::string(name), b);
  return *b;
}

void* RetainedIntermediates::output(std::string_view name, DType t, std::size_t count) {
  return hold(name, IntermediateKind::output, t, count * storage_bytes(t)).data();
}

std::int32_t* RetainedIntermediates::indices(std::string_view name, std::size_t count) {
  return hold(name, IntermediateKind::indices, DType::f32, count * sizeof(std::int32_t)).as<std::int32_t>();
}

const std::int32_t* RetainedIntermediates::input(std::string_view name, std::span<const std::int32_t> host) {
  GuardedBuffer& b = hold(name, IntermediateKind::input, DType::f32, host.size_bytes());
  if (!host.empty()) b.upload_at(0, std::as_bytes(host));
  return b.as<std::int32_t>();
}

GuardedBuffer* RetainedIntermediates::held(std::string_view name) const noexcept {
  const auto it = held_.find(name);
  return it == held_.end() ? nullptr : it->second;
}

}  // namespace mlacheck
