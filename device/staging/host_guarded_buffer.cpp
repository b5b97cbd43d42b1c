#include "device/staging/host_guarded_buffer.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
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
  // A pool past 4 GiB is a million 4 KiB pages, each faulted in when the poison first touches it
  // (40% of a host plugin's case time, measured); huge pages fault 512 times less often. Advice
  // only: where the kernel has none to give, the pages stay small.
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  if (bytes_ >= 64 * kHugePage) {
    const auto first = (reinterpret_cast<std::uintptr_t>(allocation_.get()) + kHugePage - 1) & ~(kHugePage - 1);
    const auto last = (reinterpret_cast<std::uintptr_t>(allocation_.get()) + bytes_) & ~(kHugePage - 1);
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
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
  // data() is aligned to kGuardBytes, so the buffer is whole T slots: filled as Ts, which the
  // compiler turns into wide stores (a byte-wise copy per slot was half a host case's time).
  std::fill_n(static_cast<T*>(data()), bytes_ / sizeof(T), pattern);
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
