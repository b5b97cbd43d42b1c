#pragma once
// Device-side helpers of the benchmark that need the GPU runtime (l2_flush.hip): overwriting a
// scratch buffer to evict the L2 cache, and one timed copy.
#include "device/platform/device_buffer.hpp"
#include "device/platform/stream_handle.hpp"

namespace mlacheck {

// Overwrites `scratch` on `stream` (size it at least twice the L2).
void flush_l2(DeviceBuffer& scratch, StreamHandle stream = nullptr);
// One device-to-device copy of src into dst (same size), timed with events, in milliseconds.
double timed_copy_ms(DeviceBuffer& dst, const DeviceBuffer& src);

}  // namespace mlacheck
