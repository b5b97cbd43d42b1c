// The reductions of warp_reduce.hpp, written once against the machine they run on. A `Lanes`
// value names this thread's lane and warp, the warp width, a shuffle and a block barrier; on the
// GPU it is the hardware (warp_reduce.hpp's HardwareLanes), in device/kernels/tests a host model
// of 32- or 64-lane warps on CPU threads. So the tests run this very code at both warp widths
// without a GPU. Plain C++ with MLACHECK_HD: no GPU header.
//
// A Lanes type provides (const members):
//   int width()                    lanes per warp
//   int lane(), warp(), warps()    this thread's lane, its warp, warps in the block
//   T shuffle_xor(T value, int m)  the value lane (lane() ^ m) of this warp passes
//   void sync()                    barrier of the whole block
// Preconditions as in warp_reduce.hpp: every lane of a warp takes part in a shuffle, and the
// block's thread count is a multiple of width().
#pragma once

#include <cmath>
#include <limits>

#include "core/dtype_convert.hpp"  // MLACHECK_HD

namespace mlacheck::gpu {

template <class T>
struct Sum {
  static constexpr T identity() { return T(0); }
  MLACHECK_HD T operator()(T a, T b) const { return a + b; }
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
  MLACHECK_HD T operator()(T a, T b) const {
    if constexpr (std::numeric_limits<T>::has_infinity) {
#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
      return fmax(a, b);  // the GPU's own fmax, as the kernels have always used
#else
      return std::fmax(a, b);  // the same IEEE maxNum on the host
#endif
    } else {
      return a > b ? a : b;
    }
  }
};

// Butterfly reduction within aligned groups of `group` lanes (a power of two, at most
// lanes.width()). Every lane of a group receives the group's result.
template <class T, class Op, class Lanes>
MLACHECK_HD inline T warp_reduce_on(const Lanes& lanes, T value, Op op, int group) {
  for (int offset = group / 2; offset > 0; offset /= 2) {
    value = op(value, lanes.shuffle_xor(value, offset));
  }
  return value;
}

// Enough scratch slots for any block: 1024 threads of 32-lane warps. It also never exceeds the
// warp width (32 <= 32, 16 <= 64), so one warp can finish the reduction.
inline constexpr int kBlockReduceSlots = 32;

// Reduction over the whole block; every thread receives the result. `scratch` is block-shared
// memory of kBlockReduceSlots elements, free for reuse when this returns.
template <class T, class Op, class Lanes>
MLACHECK_HD inline T block_reduce_on(const Lanes& lanes, T value, Op op, T* scratch) {
  value = warp_reduce_on(lanes, value, op, lanes.width());
  if (lanes.lane() == 0) scratch[lanes.warp()] = value;
  lanes.sync();
  if (lanes.warp() == 0) {
    T partial = lanes.lane() < lanes.warps() ? scratch[lanes.lane()] : Op::identity();
    partial = warp_reduce_on(lanes, partial, op, lanes.width());
    if (lanes.lane() == 0) scratch[0] = partial;
  }
  lanes.sync();
  const T result = scratch[0];
  lanes.sync();
  return result;
}

}  // namespace mlacheck::gpu
