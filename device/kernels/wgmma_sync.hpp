#pragma once
// Ordering around the asynchronous warpgroup products (wgmma_products.hpp), sm_90a only:
//   fence()                before the first product of a batch, after registers it reads or
//                          accumulates into were written by ordinary instructions;
//   commit() / wait<N>()   close a batch; return once all but the N most recent batches are done
//                          (their accumulators written, their shared-memory operands read);
//   hold(x)                an empty asm that names x as read and written, so the compiler keeps
//                          ordinary reads and writes of an accumulator on their side of a wait
//                          (the wait itself names no register);
//   shared_to_async()      makes this thread's shared-memory writes (stores, landed cp.async)
//                          visible to the products, which read through the async proxy; a barrier
//                          after it publishes them to the whole block.
#include "device/platform/gpu_runtime.hpp"

namespace mlacheck::kernels::wgmma {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ inline void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ inline void wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
__device__ inline void hold(float& x) { asm volatile("" : "+f"(x)::"memory"); }
template <int kN>
__device__ inline void hold(float (&x)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) hold(x[i]);
}
__device__ inline void shared_to_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
#endif

}  // namespace mlacheck::kernels::wgmma
