// Device writes for the staging tests: a plain copy, to any address a test chooses (guards included).
#include <cstddef>

#include "device/platform/gpu_check.hpp"
#include "device/platform/gpu_runtime.hpp"

namespace mlacheck::staging_test {

void write_device_raw(void* dst, const void* src, std::size_t bytes) {
  GPU_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice));
}

}  // namespace mlacheck::staging_test
