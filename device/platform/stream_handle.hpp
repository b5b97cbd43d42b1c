// The stream a launcher enqueues on, as host code sees it: the runtime's handle (hipStream_t on
// AMD, cudaStream_t on NVIDIA, both pointers) carried as void*, so launcher declarations stay
// plain C++ that .cpp files compile without GPU headers. nullptr is the default stream; .hip
// launchers convert back with static_cast<hipStream_t>.
#pragma once

namespace mlacheck {

using StreamHandle = void*;

}  // namespace mlacheck
