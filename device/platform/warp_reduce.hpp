// Warp- and block-level reductions over the device's real warp width: 32 lanes on NVIDIA, 64 on
// CDNA (wave64), 32 on RDNA. Kernels use these instead of raw shuffles or a literal 32/64, so a
// kernel that is right on one vendor is right on the other by construction.
// Preconditions: every lane of the warp takes part (no lane has returned or branched away), and
// the block's thread count is a multiple of wave_size().
#pragma once

#include <limits>

#include "device/platform/gpu_runtime.hpp"

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

template <class T>
struct Sum {
  static constexpr T identity() { return T(0); }
  __device__ T operator()(T a, T b) const { return a + b; }
};

// Commutative (fmax), so every lane of a butterfly ends with the same value even when one input
// is NaN. The identity is -inf: a fully masked score row must reduce to -inf, not -FLT_MAX.
template <class T>
struct Max {
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  }
  __device__ T operator()(T a, T b) const {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return fmax(a, b);
    } else {
      return a > b ? a : b;
    }
  }
};

// Butterfly reduction within aligned groups of `group` lanes (a power of two, at most
// wave_size(); the whole warp by default). Every lane of a group receives the group's result.
template <class T, class Op>
__device__ inline T warp_reduce(T value, Op op, int group = warpSize) {
  for (int offset = group / 2; offset > 0; offset /= 2) {
    value = op(value, shuffle_xor(value, offset));
  }
  return value;
}

template <class T>
__device__ inline T warp_sum(T value) {
  return warp_reduce(value, Sum<T>{});
}
template <class T>
__device__ inline T warp_max(T value) {
  return warp_reduce(value, Max<T>{});
}

// Enough scratch slots for any block: 1024 threads of 32-lane warps. It also never exceeds the
// warp width (32 <= 32, 16 <= 64), so one warp can finish the reduction.
inline constexpr int kBlockReduceSlots = 32;

// Reduction over the whole block; every thread receives the result. `scratch` is shared memory
// of kBlockReduceSlots elements, free for reuse when this returns.
template <class T, class Op>
__device__ inline T block_reduce(T value, Op op, T* scratch) {
  value = warp_reduce(value, op);
  if (lane_id() == 0) scratch[warp_id()] = value;
  __syncthreads();
  if (warp_id() == 0) {
    T partial = lane_id() < warps_per_block() ? scratch[lane_id()] : Op::identity();
    partial = warp_reduce(partial, op);
    if (lane_id() == 0) scratch[0] = partial;
  }
  __syncthreads();
  const T result = scratch[0];
  __syncthreads();
  return result;
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
