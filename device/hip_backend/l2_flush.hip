#include "device/hip_backend/l2_flush.hpp"

#include "device/hip_backend/gpu_timer.hpp"
#include "device/platform/gpu_check.hpp"
#include "device/platform/gpu_runtime.hpp"

namespace mlacheck {

void flush_l2(DeviceBuffer& scratch, StreamHandle stream) {
  // A value that changes from call to call, so no layer can skip the write as already done.
  static unsigned char value = 0;
  GPU_CHECK(hipMemsetAsync(scratch.data(), ++value, scratch.bytes(), static_cast<hipStream_t>(stream)));
}

double timed_copy_ms(DeviceBuffer& dst, const DeviceBuffer& src) {
  GpuTimer timer;
  timer.start();
  GPU_CHECK(hipMemcpyAsync(dst.data(), src.data(), src.bytes(), hipMemcpyDeviceToDevice, nullptr));
  return timer.stop_ms();
}

}  // namespace mlacheck
