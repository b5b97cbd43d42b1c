// A named device allocation with guard canaries; RAII, move-only. One allocation is laid out as
//   [front guard: kGuardBytes][the buffer: bytes()][back guard: kGuardBytes]
// The back guard starts right after the buffer's last byte (no rounding up), so an overrun by a
// single element lands in it. The buffer starts kGuardBytes into the allocation and so keeps the
// allocation's alignment (16-byte vector loads stay aligned). Guards are written once, at
// allocation, and read back by check_guards() / verify_canaries() after each launch.
// Host code includes this; the implementation is GPU code (device_buffer.hip).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "device/platform/canary_report.hpp"
#include "device/platform/guard_bytes.hpp"

namespace mlacheck {

class DeviceBuffer {
 public:
  static constexpr std::size_t kGuardBytes = mlacheck::kGuardBytes;

  // Contents are unspecified until written. Throws GpuError when the allocation fails.
  DeviceBuffer(std::string name, std::size_t bytes);

  // A buffer of exactly host.size_bytes(), holding a copy of host.
  template <class T, std::size_t N>
  static DeviceBuffer from_host(std::string name, std::span<T, N> host) {
    DeviceBuffer buffer(std::move(name), host.size_bytes());
    buffer.upload(host);
    return buffer;
  }

  // Never throws: after a sticky fault the free fails too, and that was reported already.
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  const std::string& name() const noexcept { return name_; }
  std::size_t bytes() const noexcept { return bytes_; }
  // nullptr once moved from.
  void* data() noexcept { return allocation_ ? allocation_ + kGuardBytes : nullptr; }
  const void* data() const noexcept { return allocation_ ? allocation_ + kGuardBytes : nullptr; }
  template <class T>
  T* as() noexcept {
    return static_cast<T*>(data());
  }
  template <class T>
  const T* as() const noexcept {
    return static_cast<const T*>(data());
  }
  template <class T>
  std::size_t size() const noexcept {
    return bytes_ / sizeof(T);
  }

  // Whole-buffer copies. The host span must have exactly bytes() bytes (std::invalid_argument
  // otherwise): a host/device size disagreement is a bug to report, not a partial copy.
  template <class T, std::size_t N>
  void upload(std::span<T, N> host) {
    copy_in(host.data(), host.size_bytes());
  }
  // A copy of `host` to bytes [offset, offset + host.size_bytes()), the rest untouched;
  // std::invalid_argument naming the buffer when the range does not lie inside it.
  template <class T, std::size_t N>
  void upload_at(std::size_t offset, std::span<T, N> host) {
    copy_in_at(offset, host.data(), host.size_bytes());
  }
  template <class T, std::size_t N>
  void download(std::span<T, N> host) const {
    static_assert(!std::is_const_v<T>, "download into a writable span");
    copy_out(host.data(), host.size_bytes());
  }
  template <class T>
  std::vector<T> download() const {
    std::vector<T> host(size<T>());
    download(std::span(host));
    return host;
  }

  // Fills the buffer with a repeated 8-, 16- or 32-bit pattern (outputs get their dtype's poison
  // code, core/poison_codes.hpp). bytes() must be a multiple of the pattern's size.
  void poison(std::uint8_t pattern);
  void poison(std::uint16_t pattern);
  void poison(std::uint32_t pattern);

  // Reads both guards back (synchronises). Empty when intact; throws GpuError only when the
  // runtime itself fails.
  std::vector<CanaryBreach> check_guards() const;

 private:
  void copy_in(const void* host, std::size_t bytes);
  void copy_in_at(std::size_t offset, const void* host, std::size_t bytes);
  void copy_out(void* host, std::size_t bytes) const;
  void release() noexcept;

  std::string name_;
  std::size_t bytes_ = 0;
  std::byte* allocation_ = nullptr;  // start of the front guard
};

// The guards of every listed buffer (non-null), in order.
CanaryReport verify_canaries(std::span<const DeviceBuffer* const> buffers);
CanaryReport verify_canaries(std::initializer_list<const DeviceBuffer*> buffers);

}  // namespace mlacheck
