#include "device/platform/device_buffer.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "device/platform/buffer_range.hpp"
#include "device/platform/gpu_check.hpp"
#include "device/platform/guard_bytes.hpp"

namespace mlacheck {
namespace {

using GuardBytes = std::array<std::byte, kGuardBytes>;

template <class T>
__global__ void fill_kernel(T* data, std::size_t count, T value) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = value;
  }
}

template <class T>
void fill(const std::string& name, void* data, std::size_t bytes, T pattern) {
  if (bytes % sizeof(T) != 0) {
    throw std::invalid_argument("poison of '" + name + "': " + std::to_string(bytes) +
                                " bytes is not a whole number of " + std::to_string(sizeof(T)) + "-byte patterns");
  }
  const std::size_t count = bytes / sizeof(T);
  if (count == 0) return;
  constexpr unsigned kThreads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((count + kThreads - 1) / kThreads, 4096));
  fill_kernel<<<blocks, kThreads>>>(static_cast<T*>(data), count, pattern);
  GPU_CHECK_LAUNCH("fill_kernel", nullptr);
}

void check_size(const std::string& name, const char* what, std::size_t given, std::size_t held) {
  if (given != held) {
    throw std::invalid_argument(std::string(what) + " '" + name + "': " + std::to_string(given) +
                                " bytes given, the buffer holds " + std::to_string(held));
  }
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::string name, std::size_t bytes) : name_(std::move(name)), bytes_(bytes) {
  void* allocation = nullptr;
  GPU_CHECK(hipMalloc(&allocation, bytes_ + 2 * kGuardBytes));
  allocation_ = static_cast<std::byte*>(allocation);
  try {
    const std::span<const std::byte, kGuardBytes> pattern = guard_pattern();
    GPU_CHECK(hipMemcpy(allocation_, pattern.data(), kGuardBytes, hipMemcpyHostToDevice));
    GPU_CHECK(hipMemcpy(allocation_ + kGuardBytes + bytes_, pattern.data(), kGuardBytes, hipMemcpyHostToDevice));
  } catch (...) {
    release();
    throw;
  }
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : name_(std::move(other.name_)),
      bytes_(std::exchange(other.bytes_, 0)),
      allocation_(std::exchange(other.allocation_, nullptr)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    name_ = std::move(other.name_);
    bytes_ = std::exchange(other.bytes_, 0);
    allocation_ = std::exchange(other.allocation_, nullptr);
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (allocation_ == nullptr) return;
  if (hipFree(allocation_) != hipSuccess) (void)hipGetLastError();
  allocation_ = nullptr;
}

void DeviceBuffer::copy_in(const void* host, std::size_t bytes) {
  check_size(name_, "upload to", bytes, bytes_);
  if (bytes == 0) return;
  GPU_CHECK(hipMemcpy(data(), host, bytes, hipMemcpyHostToDevice));
}

void DeviceBuffer::copy_in_at(std::size_t offset, const void* host, std::size_t bytes) {
  check_range(name_, offset, bytes, bytes_);
  if (bytes == 0) return;
  GPU_CHECK(hipMemcpy(static_cast<std::byte*>(data()) + offset, host, bytes, hipMemcpyHostToDevice));
}

void DeviceBuffer::copy_out(void* host, std::size_t bytes) const {
  check_size(name_, "download from", bytes, bytes_);
  if (bytes == 0) return;
  GPU_CHECK(hipMemcpy(host, data(), bytes, hipMemcpyDeviceToHost));
}

void DeviceBuffer::poison(std::uint8_t pattern) { fill(name_, data(), bytes_, pattern); }
void DeviceBuffer::poison(std::uint16_t pattern) { fill(name_, data(), bytes_, pattern); }
void DeviceBuffer::poison(std::uint32_t pattern) { fill(name_, data(), bytes_, pattern); }

std::vector<CanaryBreach> DeviceBuffer::check_guards() const {
  if (allocation_ == nullptr) return {};
  GuardBytes front{};
  GuardBytes back{};
  GPU_CHECK(hipMemcpy(front.data(), allocation_, kGuardBytes, hipMemcpyDeviceToHost));
  GPU_CHECK(hipMemcpy(back.data(), allocation_ + kGuardBytes + bytes_, kGuardBytes, hipMemcpyDeviceToHost));
  return find_guard_breaches(name_, front, back);
}

CanaryReport verify_canaries(std::span<const DeviceBuffer* const> buffers) {
  CanaryReport report;
  for (const DeviceBuffer* buffer : buffers) {
    for (CanaryBreach& breach : buffer->check_guards()) {
      report.breaches.push_back(std::move(breach));
    }
  }
  return report;
}

CanaryReport verify_canaries(std::initializer_list<const DeviceBuffer*> buffers) {
  return verify_canaries(std::span<const DeviceBuffer* const>(buffers.begin(), buffers.size()));
}

}  // namespace mlacheck
