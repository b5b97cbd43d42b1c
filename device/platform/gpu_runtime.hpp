// The one include for GPU runtime and kernel code (.hip sources, compiled through
// mlacheck_add_gpu_sources): HIP on AMD, HIP names mapped onto CUDA on NVIDIA. Host-only code
// includes the platform's API headers instead, which carry no GPU types.
#pragma once

#if defined(MLACHECK_GPU_HIP)
#include <hip/hip_runtime.h>
#elif defined(MLACHECK_GPU_CUDA)
#include "device/platform/hip_to_cuda.hpp"
#else
#error "gpu_runtime.hpp needs a GPU backend: add the source with mlacheck_add_gpu_sources()"
#endif
