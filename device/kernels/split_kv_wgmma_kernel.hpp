#pragma once
// Stage 1 of the split-KV MLA decode on Hopper's warpgroup matrix products: the blocks of
// split_kv_partial_kernel (partial_block, partial_out), attended by WgmmaRowGroupAttention. Built
// into the sm_90a code only; everywhere else the kernel is an empty shell the launcher never
// starts (wgmma_built_for_device() reads which code the device loaded).
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include "device/kernels/split_kv_partial_kernel.hpp"
#include "device/kernels/wgmma_row_group_attention.hpp"

namespace mlacheck::kernels {

template <class Q, class KV, int kLv>
__global__ void __launch_bounds__(WgmmaGeometry<kLv>::kThreads, 1) split_kv_wgmma_kernel(PartialParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Attention = WgmmaRowGroupAttention<Q, KV, kLv>;
  extern __shared__ Chunk16 dynamic_shared[];
  char* shared = Attention::base(dynamic_shared);
  const PartialBlock<WgmmaGeometry<kLv>::kRowTiles> block = partial_block<Q, WgmmaGeometry<kLv>::kRowTiles>(p);
  if (block.leaves) return;
  const auto state = Attention::attend(shared, p.attention, block.rows, block.slots, block.n_tokens);
  Attention::template write<float>(shared, state, p.attention,
                                   [&](std::int64_t out_row) { return partial_out(p, out_row); });
#else
  (void)p;
  __trap();  // never launched: the launcher asks wgmma_built_for_device() first
#endif
}

}  // namespace mlacheck::kernels
