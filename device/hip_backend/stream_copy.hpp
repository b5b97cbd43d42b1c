#pragma once
// A host-to-device copy enqueued on a stream (stream_copy.hip), for a backend that must not
// synchronise: the host bytes must stay valid until the stream has run the copy.
#include <cstddef>

#include "device/platform/stream_handle.hpp"

namespace mlacheck {

void copy_to_device_async(void* device_dst, const void* host_src, std::size_t bytes, StreamHandle stream);

}  // namespace mlacheck
