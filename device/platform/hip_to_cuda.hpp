// The part of the HIP runtime API that mlacheck uses, mapped onto the CUDA runtime, so that the
// .hip sources compile unchanged with nvcc. We own this instead of using HIP's NVIDIA headers:
// the distro ones (HIP 5.2) do not compile against CUDA 13, and a short list pins exactly what
// the kernels rely on. Add a name here only when a source needs it. Included through
// gpu_runtime.hpp only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

// Errors.
using hipError_t = cudaError_t;
inline constexpr hipError_t hipSuccess = cudaSuccess;
inline constexpr hipError_t hipErrorInvalidValue = cudaErrorInvalidValue;
inline constexpr hipError_t hipErrorInvalidDevice = cudaErrorInvalidDevice;
inline constexpr hipError_t hipErrorNoDevice = cudaErrorNoDevice;
inline constexpr hipError_t hipErrorIllegalAddress = cudaErrorIllegalAddress;
inline constexpr hipError_t hipErrorLaunchFailure = cudaErrorLaunchFailure;
inline constexpr hipError_t hipErrorLaunchTimeOut = cudaErrorLaunchTimeout;
inline constexpr hipError_t hipErrorAssert = cudaErrorAssert;

inline const char* hipGetErrorName(hipError_t error) { return cudaGetErrorName(error); }
inline const char* hipGetErrorString(hipError_t error) { return cudaGetErrorString(error); }
inline hipError_t hipGetLastError() { return cudaGetLastError(); }
inline hipError_t hipPeekAtLastError() { return cudaPeekAtLastError(); }

// Devices. hipDeviceProp_t is our own struct with HIP's field names: CUDA 13's cudaDeviceProp
// has no gcnArchName, which we fill with the "sm_XY" target name instead.
struct hipDeviceProp_t {
  char name[256];
  char gcnArchName[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  std::size_t maxSharedMemoryPerMultiProcessor;
  int warpSize;
  int maxThreadsPerBlock;
  int multiProcessorCount;
  int l2CacheSize;
  int major;
  int minor;
};

inline hipError_t hipGetDeviceCount(int* count) { return cudaGetDeviceCount(count); }
inline hipError_t hipGetDevice(int* device) { return cudaGetDevice(device); }
inline hipError_t hipSetDevice(int device) { return cudaSetDevice(device); }
inline hipError_t hipDeviceSynchronize() { return cudaDeviceSynchronize(); }
inline hipError_t hipDeviceGetPCIBusId(char* bus_id, int length, int device) {
  return cudaDeviceGetPCIBusId(bus_id, length, device);
}

inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int device) {
  cudaDeviceProp cuda{};
  const cudaError_t status = cudaGetDeviceProperties(&cuda, device);
  if (status != cudaSuccess) return status;
  *prop = hipDeviceProp_t{};
  std::memcpy(prop->name, cuda.name, sizeof(prop->name));
  prop->name[sizeof(prop->name) - 1] = '\0';
  std::snprintf(prop->gcnArchName, sizeof(prop->gcnArchName), "sm_%d%d", cuda.major, cuda.minor);
  prop->totalGlobalMem = cuda.totalGlobalMem;
  prop->sharedMemPerBlock = cuda.sharedMemPerBlock;
  prop->maxSharedMemoryPerMultiProcessor = cuda.sharedMemPerMultiprocessor;
  prop->warpSize = cuda.warpSize;
  prop->maxThreadsPerBlock = cuda.maxThreadsPerBlock;
  prop->multiProcessorCount = cuda.multiProcessorCount;
  prop->l2CacheSize = cuda.l2CacheSize;
  prop->major = cuda.major;
  prop->minor = cuda.minor;
  return cudaSuccess;
}

// Memory.
using hipMemcpyKind = cudaMemcpyKind;
inline constexpr hipMemcpyKind hipMemcpyHostToDevice = cudaMemcpyHostToDevice;
inline constexpr hipMemcpyKind hipMemcpyDeviceToHost = cudaMemcpyDeviceToHost;
inline constexpr hipMemcpyKind hipMemcpyDeviceToDevice = cudaMemcpyDeviceToDevice;

inline hipError_t hipMalloc(void** ptr, std::size_t bytes) { return cudaMalloc(ptr, bytes); }
template <class T>
hipError_t hipMalloc(T** ptr, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
inline hipError_t hipFree(void* ptr) { return cudaFree(ptr); }
inline hipError_t hipMemcpy(void* dst, const void* src, std::size_t bytes, hipMemcpyKind kind) {
  return cudaMemcpy(dst, src, bytes, kind);
}
inline hipError_t hipMemset(void* dst, int value, std::size_t bytes) { return cudaMemset(dst, value, bytes); }
inline hipError_t hipMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  return cudaMemGetInfo(free_bytes, total_bytes);
}

// Streams and events (timings).
using hipStream_t = cudaStream_t;
using hipEvent_t = cudaEvent_t;

inline hipError_t hipStreamCreate(hipStream_t* stream) { return cudaStreamCreate(stream); }
inline hipError_t hipStreamDestroy(hipStream_t stream) { return cudaStreamDestroy(stream); }
inline hipError_t hipStreamSynchronize(hipStream_t stream) { return cudaStreamSynchronize(stream); }
inline hipError_t hipMemcpyAsync(void* dst, const void* src, std::size_t bytes, hipMemcpyKind kind,
                                 hipStream_t stream) {
  return cudaMemcpyAsync(dst, src, bytes, kind, stream);
}
inline hipError_t hipMemsetAsync(void* dst, int value, std::size_t bytes, hipStream_t stream) {
  return cudaMemsetAsync(dst, value, bytes, stream);
}
inline hipError_t hipEventCreate(hipEvent_t* event) { return cudaEventCreate(event); }
inline hipError_t hipEventDestroy(hipEvent_t event) { return cudaEventDestroy(event); }
inline hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) { return cudaEventRecord(event, stream); }
inline hipError_t hipEventSynchronize(hipEvent_t event) { return cudaEventSynchronize(event); }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  return cudaEventElapsedTime(ms, start, stop);
}

// Kernel attributes and occupancy (sizing persistent grids and large shared-memory tiles).
using hipFuncAttribute = cudaFuncAttribute;
inline constexpr hipFuncAttribute hipFuncAttributeMaxDynamicSharedMemorySize =
    cudaFuncAttributeMaxDynamicSharedMemorySize;

inline hipError_t hipFuncSetAttribute(const void* kernel, hipFuncAttribute attribute, int value) {
  return cudaFuncSetAttribute(kernel, attribute, value);
}
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* kernel, int block_size,
                                                               std::size_t dynamic_shared_bytes) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, block_size, dynamic_shared_bytes);
}
