// Prefix sums of per-request lengths on the device (kv_indptr, cu_seq_lens). Batches hold at
// most 65536 requests, so one block walks them in chunks of its width, scanning each chunk in
// shared memory (log2(width) steps, no warp-width assumption) and carrying the chunk's total.
#include "device/layout/launch_shape.hpp"
#include "device/layout/launchers.hpp"
#include "device/platform/gpu_check.hpp"

namespace mlacheck::layout {

namespace {

__global__ void __launch_bounds__(kLayoutThreads)
    lengths_to_indptr_kernel(const std::int32_t* lengths, int count, int unit, std::int32_t* indptr) {
  __shared__ std::int32_t scan[kLayoutThreads];
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) indptr[0] = 0;
  std::int32_t carry = 0;
  for (int first = 0; first < count; first += kLayoutThreads) {
    const int i = first + t;
    std::int32_t sum = i < count ? (lengths[i] + unit - 1) / unit : 0;
    scan[t] = sum;
    __syncthreads();
    // Hillis-Steele: after the step of distance d, scan[t] sums the 2d elements ending at t.
    for (int d = 1; d < kLayoutThreads; d *= 2) {
      const std::int32_t left = t >= d ? scan[t - d] : 0;
      __syncthreads();
      sum += left;
      scan[t] = sum;
      __syncthreads();
    }
    if (i < count) indptr[i + 1] = carry + sum;
    carry += scan[kLayoutThreads - 1];
    __syncthreads();  // every thread has read the chunk total before the next chunk overwrites it
  }
}

}  // namespace

void launch_lengths_to_indptr(const std::int32_t* lengths, int count, std::int32_t* indptr, StreamHandle stream_handle,
                              int unit) {
  const auto stream = static_cast<hipStream_t>(stream_handle);
  check_lengths_to_indptr(lengths, count, indptr, unit);
  lengths_to_indptr_kernel<<<1, kLayoutThreads, 0, stream>>>(lengths, count, unit, indptr);
  GPU_CHECK_LAUNCH("lengths_to_indptr_kernel", stream);
}

}  // namespace mlacheck::layout
