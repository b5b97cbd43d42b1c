#pragma once
// 16-byte copies from global into shared memory that may complete later, so that the loads of the
// next KV tiles are in flight while the current one is computed.
//   NVIDIA (sm_80 and later): cp.async.cg (L1 bypassed: each KV row is read once per block), in
//   commit groups; wait_groups<n>() returns once all but the n most recent groups have landed.
//   HIP: an ordinary load and store, complete on return; the group calls do nothing. (gfx90a and
//   gfx94x have no 16-byte global-to-LDS copy.)
// A copy lands for the thread that issued it; other threads see it after a barrier that follows
// that thread's wait.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>

#include "device/kernels/lds_chunk.hpp"

namespace mlacheck::kernels {

// Copies 16 bytes from global src to shared dst (both 16-byte aligned) when `present`, else writes
// 16 zero bytes to dst; src is a valid global address either way (nothing is read from it when not
// present).
__device__ inline void copy16_async(void* dst, const void* src, bool present) {
#if defined(MLACHECK_GPU_CUDA)
  // A source size of 0 fills the destination with zeros.
  const auto dst_shared = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst_shared), "l"(src), "r"(present ? 16 : 0)
               : "memory");
#else
  *static_cast<Chunk16*>(dst) = present ? *static_cast<const Chunk16*>(src) : Chunk16{};
#endif
}

__device__ inline void commit_copies() {
#if defined(MLACHECK_GPU_CUDA)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int kPending>
__device__ inline void wait_copies() {
#if defined(MLACHECK_GPU_CUDA)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

}  // namespace mlacheck::kernels
