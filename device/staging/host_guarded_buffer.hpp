#pragma once
// The host flavour of GuardedBuffer: the layout, guard pattern and poison fills of DeviceBuffer in
// ordinary memory. The buffer starts 256-byte aligned, as device allocations do, so a plugin's
// vector loads behave as they would on the device.
#include <cstddef>
#include <memory>
#include <string>

#include "device/staging/guarded_buffer.hpp"

namespace mlacheck {

class HostGuardedBuffer final : public GuardedBuffer {
 public:
  HostGuardedBuffer(std::string name, std::size_t bytes);
  StagingMemory memory() const noexcept override { return StagingMemory::host; }
  const std::string& name() const noexcept override { return name_; }
  std::size_t bytes() const noexcept override { return bytes_; }
  void* data() noexcept override { return allocation_.get() + kGuardBytes; }
  const void* data() const noexcept override { return allocation_.get() + kGuardBytes; }
  void upload(std::span<const std::byte> host) override;
  void upload_at(std::size_t offset, std::span<const std::byte> host) override;
  std::vector<std::byte> download() const override;
  void poison(std::uint8_t pattern) override;
  void poison(std::uint16_t pattern) override;
  void poison(std::uint32_t pattern) override;
  std::vector<CanaryBreach> check_guards() const override;

 private:
  struct AlignedDelete {
    void operator()(std::byte* p) const noexcept;
  };
  template <class T>
  void fill(T pattern);

  std::string name_;
  std::size_t bytes_ = 0;
  std::unique_ptr<std::byte[], AlignedDelete> allocation_;  // starts with the front guard
};

}  // namespace mlacheck
