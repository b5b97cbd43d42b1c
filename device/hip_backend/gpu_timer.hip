#include "device/hip_backend/gpu_timer.hpp"

#include "device/platform/gpu_check.hpp"
#include "device/platform/gpu_runtime.hpp"

namespace mlacheck {

GpuTimer::GpuTimer(StreamHandle stream) : stream_(stream) {
  hipEvent_t a = nullptr;
  hipEvent_t b = nullptr;
  GPU_CHECK(hipEventCreate(&a));
  if (const hipError_t status = hipEventCreate(&b); status != hipSuccess) {
    (void)hipEventDestroy(a);
    GPU_CHECK(status);
  }
  start_ = a;
  stop_ = b;
}

GpuTimer::~GpuTimer() {
  // Never throws: after a sticky fault destruction fails too, and that was reported already.
  (void)hipEventDestroy(static_cast<hipEvent_t>(start_));
  (void)hipEventDestroy(static_cast<hipEvent_t>(stop_));
}

void GpuTimer::start() {
  GPU_CHECK(hipEventRecord(static_cast<hipEvent_t>(start_), static_cast<hipStream_t>(stream_)));
}

double GpuTimer::stop_ms() {
  GPU_CHECK(hipEventRecord(static_cast<hipEvent_t>(stop_), static_cast<hipStream_t>(stream_)));
  GPU_CHECK(hipEventSynchronize(static_cast<hipEvent_t>(stop_)));
  float ms = 0.0f;
  GPU_CHECK(hipEventElapsedTime(&ms, static_cast<hipEvent_t>(start_), static_cast<hipEvent_t>(stop_)));
  return static_cast<double>(ms);
}

}  // namespace mlacheck
