#pragma once
// A GPU stream to hand a device backend's run() (backend_abi.h: never NULL for device backends).
// Created blocking with respect to the default stream, so the staging layer's synchronous copies
// and poison fills (on the default stream) are ordered before the backend's work and its reads
// after it. Built only with a GPU backend; host code includes this (no GPU types).
#include "device/platform/stream_handle.hpp"

namespace mlacheck {

class DeviceStream {
 public:
  // On the calling thread's current GPU. Throws GpuError.
  DeviceStream();
  ~DeviceStream();  // never throws
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;

  StreamHandle handle() const noexcept { return stream_; }
  // Waits for the work enqueued so far. Throws GpuError naming the fault a kernel raised.
  void synchronize();

 private:
  StreamHandle stream_ = nullptr;
};

}  // namespace mlacheck
