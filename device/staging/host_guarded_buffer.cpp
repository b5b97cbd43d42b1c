#include "device/staging/host_guarded_buffer.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>

#include "device/platform/buffer_range.hpp"
#include "device/platform/guard_bytes.hpp"

namespace mlacheck {

namespace {

constexpr std::align_val_t kAlignment{GuardedBuffer::kGuardBytes};

void check_size(const std::string& name, const char* what, std::size_t given, std::size_t held) {
  if (given != held) {
    throw std::invalid_argument(std::string(what) + " '" + name + "': " + std::to_string(given) +
                                " bytes given, the buffer holds " + std::to_string(held));
  }
}

}  // namespace

void HostGuardedBuffer::AlignedDelete::operator()(std::byte* p) const noexcept { ::operator delete[](p, kAlignment); }

HostGuardedBuffer::HostGuardedBuffer(std::string name, std::size_t bytes)
    : name_(std::move(name)),
      bytes_(bytes),
      allocation_(static_cast<std::byte*>(::operator new[](bytes + 2 * kGuardBytes, kAlignment))) {
  static_assert(kGuardBytes == mlacheck::kGuardBytes, "host and device guards share one layout");
  std::memcpy(allocation_.get(), guard_pattern().data(), kGuardBytes);
  std::memcpy(allocation_.get() + kGuardBytes + bytes_, guard_pattern().data(), kGuardBytes);
}

void HostGuardedBuffer::upload(std::span<const std::byte> host) {
  check_size(name_, "upload to", host.size(), bytes_);
  if (!host.empty()) std::memcpy(data(), host.data(), host.size());
}

void HostGuardedBuffer::upload_at(std::size_t offset, std::span<const std::byte> host) {
  check_range(name_, offset, host.size(), bytes_);
  if (!host.empty()) std::memcpy(static_cast<std::byte*>(data()) + offset, host.data(), host.size());
}

std::vector<std::byte> HostGuardedBuffer::download() const {
  const auto* first = static_cast<const std::byte*>(data());
  return std::vector<std::byte>(first, first + bytes_);
}

template <class T>
void HostGuardedBuffer::fill(T pattern) {
  if (bytes_ % sizeof(T) != 0) {
    throw std::invalid_argument("poison of '" + name_ + "': " + std::to_string(bytes_) +
                                " bytes is not a whole number of " + std::to_string(sizeof(T)) + "-byte patterns");
  }
  auto* out = static_cast<std::byte*>(data());
  for (std::size_t i = 0; i < bytes_; i += sizeof(T)) std::memcpy(out + i, &pattern, sizeof(T));
}

void HostGuardedBuffer::poison(std::uint8_t pattern) { fill(pattern); }
void HostGuardedBuffer::poison(std::uint16_t pattern) { fill(pattern); }
void HostGuardedBuffer::poison(std::uint32_t pattern) { fill(pattern); }

std::vector<CanaryBreach> HostGuardedBuffer::check_guards() const {
  const std::byte* front = allocation_.get();
  return find_guard_breaches(name_, std::span<const std::byte, mlacheck::kGuardBytes>(front, kGuardBytes),
                             std::span<const std::byte, mlacheck::kGuardBytes>(front + kGuardBytes + bytes_, kGuardBytes));
}

}  // namespace mlacheck
