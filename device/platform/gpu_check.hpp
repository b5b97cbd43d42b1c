// Checks for GPU runtime calls and kernel launches; any failure throws mlacheck::GpuError naming
// the call, the error, file and line. For .hip sources only (needs the runtime's error type).
//
//   GPU_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice));
//   my_kernel<<<grid, block, shared, stream>>>(args);
//   GPU_CHECK_LAUNCH("my_kernel", stream);
#pragma once

#include <string>
#include <string_view>

#include "device/platform/gpu_error.hpp"
#include "device/platform/gpu_runtime.hpp"
#include "device/platform/sync_after_launch.hpp"

namespace mlacheck {

// Sticky errors leave the context unusable (CUDA documents that the process must restart); HIP
// reports its faults with the first four codes.
inline bool is_sticky_error(hipError_t status) noexcept {
  switch (status) {
    case hipErrorIllegalAddress:
    case hipErrorLaunchFailure:
    case hipErrorLaunchTimeOut:
    case hipErrorAssert:
#if defined(MLACHECK_GPU_CUDA)
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorInvalidPc:
    case cudaErrorInvalidAddressSpace:
#endif
      return true;
    default:
      return false;
  }
}

inline void check_gpu(hipError_t status, std::string_view call, const char* file, int line) {
  if (status == hipSuccess) return;
  // The runtime also keeps the error in its last-error slot; clear it so that a failure the
  // caller catches and handles is not reported again by the next launch check.
  (void)hipGetLastError();
  throw GpuError(format_gpu_error(call, hipGetErrorName(status), hipGetErrorString(status), file, line),
                 static_cast<int>(status), is_sticky_error(status));
}

inline void check_launch(std::string_view kernel, hipStream_t stream, const char* file, int line) {
  // The labels are built only on failure: this runs after every launch.
  if (const hipError_t status = hipGetLastError(); status != hipSuccess) {
    check_gpu(status, std::string("launch of ").append(kernel), file, line);
  }
  if (!sync_after_launch()) return;
  if (const hipError_t status = hipStreamSynchronize(stream); status != hipSuccess) {
    check_gpu(status, std::string("kernel ").append(kernel), file, line);
  }
}

}  // namespace mlacheck

#define GPU_CHECK(call) ::mlacheck::check_gpu((call), #call, __FILE__, __LINE__)
#define GPU_CHECK_LAUNCH(kernel_name, stream) ::mlacheck::check_launch((kernel_name), (stream), __FILE__, __LINE__)
