#pragma once
// One named, guarded allocation in host or device memory. Both flavours have the layout of
// DeviceBuffer (device/platform/device_buffer.hpp):
//   [front guard: kGuardBytes][the buffer: bytes()][back guard: kGuardBytes]
// with the back guard right after the last byte, guards holding a position-varying pattern
// written at allocation and read back by check_guards(). Host buffers exist so that a CPU backend
// (or any backend run in a build without a GPU) is judged by the same poison and canary checks.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "device/platform/canary_report.hpp"
#include "device/staging/staging_memory.hpp"

namespace mlacheck {

class GuardedBuffer {
 public:
  static constexpr std::size_t kGuardBytes = 256;

  virtual ~GuardedBuffer() = default;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  virtual StagingMemory memory() const noexcept = 0;
  virtual const std::string& name() const noexcept = 0;
  virtual std::size_t bytes() const noexcept = 0;
  // Host or device pointer by memory(); never null (a 0-byte buffer still has its guards).
  virtual void* data() noexcept = 0;
  virtual const void* data() const noexcept = 0;
  template <class T>
  T* as() noexcept {
    return static_cast<T*>(data());
  }
  template <class T>
  const T* as() const noexcept {
    return static_cast<const T*>(data());
  }

  // Whole-buffer copies: `host` must hold exactly bytes() bytes (std::invalid_argument naming
  // the buffer otherwise). Device flavour: synchronous copies on the default stream.
  virtual void upload(std::span<const std::byte> host) = 0;
  // A copy of `host` to bytes [offset, offset + host.size()) of the buffer, the rest untouched
  // (a cache pool whose host side holds only the blocks requests read). std::invalid_argument
  // naming the buffer when the range does not lie inside it.
  virtual void upload_at(std::size_t offset, std::span<const std::byte> host) = 0;
  virtual std::vector<std::byte> download() const = 0;
  // Fills the buffer with a repeated 8-, 16- or 32-bit pattern; bytes() must be a multiple of
  // the pattern's size (std::invalid_argument naming the buffer otherwise).
  virtual void poison(std::uint8_t pattern) = 0;
  virtual void poison(std::uint16_t pattern) = 0;
  virtual void poison(std::uint32_t pattern) = 0;
  // Both guards read back (device flavour: synchronises). Empty when intact.
  virtual std::vector<CanaryBreach> check_guards() const = 0;

 protected:
  GuardedBuffer() = default;
};

// A buffer of `bytes` in `memory`, contents unspecified. Throws std::invalid_argument for device
// memory in a build without a GPU backend (naming why there is none), GpuError when a device
// allocation fails.
std::unique_ptr<GuardedBuffer> make_guarded_buffer(StagingMemory memory, std::string name, std::size_t bytes);

}  // namespace mlacheck
