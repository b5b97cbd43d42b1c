#include "device/hip_backend/stream_copy.hpp"

#include "device/platform/gpu_check.hpp"
#include "device/platform/gpu_runtime.hpp"

namespace mlacheck {

void copy_to_device_async(void* device_dst, const void* host_src, std::size_t bytes, StreamHandle stream) {
  GPU_CHECK(hipMemcpyAsync(device_dst, host_src, bytes, hipMemcpyHostToDevice, static_cast<hipStream_t>(stream)));
}

}  // namespace mlacheck
