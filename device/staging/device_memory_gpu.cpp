// Device staging: a GuardedBuffer over DeviceBuffer, whose allocation, guards, copies and poison
// fills are the platform's (device/platform/device_buffer.hip).
#include "device/platform/device_buffer.hpp"
#include "device/platform/device_info.hpp"
#include "device/staging/device_memory.hpp"

namespace mlacheck {

namespace {

static_assert(DeviceBuffer::kGuardBytes == GuardedBuffer::kGuardBytes, "host and device guards have one layout");

class DeviceGuardedBuffer final : public GuardedBuffer {
 public:
  DeviceGuardedBuffer(std::string name, std::size_t bytes) : buffer_(std::move(name), bytes) {}
  StagingMemory memory() const noexcept override { return StagingMemory::device; }
  const std::string& name() const noexcept override { return buffer_.name(); }
  std::size_t bytes() const noexcept override { return buffer_.bytes(); }
  void* data() noexcept override { return buffer_.data(); }
  const void* data() const noexcept override { return buffer_.data(); }
  void upload(std::span<const std::byte> host) override { buffer_.upload(host); }
  void upload_at(std::size_t offset, std::span<const std::byte> host) override { buffer_.upload_at(offset, host); }
  std::vector<std::byte> download() const override { return buffer_.download<std::byte>(); }
  void poison(std::uint8_t pattern) override { buffer_.poison(pattern); }
  void poison(std::uint16_t pattern) override { buffer_.poison(pattern); }
  void poison(std::uint32_t pattern) override { buffer_.poison(pattern); }
  std::vector<CanaryBreach> check_guards() const override { return buffer_.check_guards(); }

 private:
  DeviceBuffer buffer_;
};

}  // namespace

bool device_staging_built() noexcept { return true; }

std::optional<std::uint64_t> device_free_bytes() { return current_device_free_bytes(); }

std::unique_ptr<GuardedBuffer> make_device_guarded_buffer(std::string name, std::size_t bytes) {
  return std::make_unique<DeviceGuardedBuffer>(std::move(name), bytes);
}

}  // namespace mlacheck
