#include "device/staging/device_stream.hpp"

#include "device/platform/gpu_check.hpp"
#include "device/platform/gpu_runtime.hpp"

namespace mlacheck {

DeviceStream::DeviceStream() {
  hipStream_t stream = nullptr;
  GPU_CHECK(hipStreamCreate(&stream));  // default flags: ordered with the default stream
  stream_ = stream;
}

DeviceStream::~DeviceStream() {
  // Never throws: after a sticky fault destruction fails too, and that was reported already.
  if (hipStreamDestroy(static_cast<hipStream_t>(stream_)) != hipSuccess) (void)hipGetLastError();
}

void DeviceStream::synchronize() { GPU_CHECK(hipStreamSynchronize(static_cast<hipStream_t>(stream_))); }

}  // namespace mlacheck
