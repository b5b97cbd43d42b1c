// Warp- and block-level reductions over the device's real warp width: 32 lanes on NVIDIA, 64 on
// CDNA (wave64), 32 on RDNA. Kernels use these instead of raw shuffles or a literal 32/64, so a
// kernel that is right on one vendor is right on the other by construction. The reductions
// themselves are lane_reductions.hpp, run here on the hardware's lanes and in the host lane model
// of device/kernels/tests at widths 32 and 64.
// Preconditions: every lane of the warp takes part (no lane has returned or branched away), and
// the block's thread count is a multiple of wave_size().
#pragma once

#include "device/platform/gpu_runtime.hpp"
#include "device/platform/lane_reductions.hpp"

namespace mlacheck::gpu {

__device__ inline int wave_size() { return warpSize; }

__device__ inline int thread_rank() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
__device__ inline int block_threads() { return static_cast<int>(blockDim.x * blockDim.y * blockDim.z); }
__device__ inline int lane_id() { return thread_rank() % warpSize; }
__device__ inline int warp_id() { return thread_rank() / warpSize; }
__device__ inline int warps_per_block() { return block_threads() / warpSize; }

// The value that lane (lane_id() ^ lane_mask) holds.
template <class T>
__device__ inline T shuffle_xor(T value, int lane_mask) {
#if defined(MLACHECK_GPU_CUDA)
  return __shfl_xor_sync(0xffffffffu, value, lane_mask);
#else
  return __shfl_xor(value, lane_mask);
#endif
}

// The value that lane src_lane holds.
template <class T>
__device__ inline T shuffle(T value, int src_lane) {
#if defined(MLACHECK_GPU_CUDA)
  return __shfl_sync(0xffffffffu, value, src_lane);
#else
  return __shfl(value, src_lane);
#endif
}

// The Lanes of lane_reductions.hpp on the GPU itself.
struct HardwareLanes {
  __device__ int width() const { return warpSize; }
  __device__ int lane() const { return lane_id(); }
  __device__ int warp() const { return warp_id(); }
  __device__ int warps() const { return warps_per_block(); }
  template <class T>
  __device__ T shuffle_xor(T value, int lane_mask) const {
    return gpu::shuffle_xor(value, lane_mask);
  }
  __device__ void sync() const { __syncthreads(); }
};

// Butterfly reduction within aligned groups of `group` lanes (a power of two, at most
// wave_size(); the whole warp by default). Every lane of a group receives the group's result.
template <class T, class Op>
__device__ inline T warp_reduce(T value, Op op, int group = warpSize) {
  return warp_reduce_on(HardwareLanes{}, value, op, group);
}

template <class T>
__device__ inline T warp_sum(T value) {
  return warp_reduce(value, Sum<T>{});
}
template <class T>
__device__ inline T warp_max(T value) {
  return warp_reduce(value, Max<T>{});
}

// Reduction over the whole block; every thread receives the result. `scratch` is shared memory
// of kBlockReduceSlots elements, free for reuse when this returns.
template <class T, class Op>
__device__ inline T block_reduce(T value, Op op, T* scratch) {
  return block_reduce_on(HardwareLanes{}, value, op, scratch);
}

template <class T>
__device__ inline T block_sum(T value, T* scratch) {
  return block_reduce(value, Sum<T>{}, scratch);
}
template <class T>
__device__ inline T block_max(T value, T* scratch) {
  return block_reduce(value, Max<T>{}, scratch);
}

}  // namespace mlacheck::gpu
