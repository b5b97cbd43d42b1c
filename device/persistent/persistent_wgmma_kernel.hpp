#pragma once
// The persistent kernel on Hopper's warpgroup matrix products: the work loop of
// persistent_decode_kernel.hpp over WgmmaRowGroupAttention (q and cache of one 16-bit type T, row
// groups of two or four row tiles), one block per SM as the portable instance it replaces. The
// launcher instantiates Lv 256 only (wgmma_dispatch.hpp, persistent_wgmma_fits). Built into the
// sm_90a code only; the launcher asks wgmma_built_for_device() first.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include "device/kernels/wgmma_row_group_attention.hpp"
#include "device/persistent/persistent_decode_kernel.hpp"

namespace mlacheck::kernels {

template <class T, int kLv>
__global__ void __launch_bounds__(WgmmaGeometry<kLv>::kThreads, 1) persistent_wgmma_kernel(PersistentParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Attention = WgmmaRowGroupAttention<T, T, kLv>;
  extern __shared__ Chunk16 dynamic_shared[];
  char* shared = Attention::base(dynamic_shared);
  walk_work_list<Attention, T, WgmmaGeometry<kLv>::kRowTiles>(p, shared);
#else
  (void)p;
  __trap();  // never launched: the launcher asks wgmma_built_for_device() first
#endif
}

}  // namespace mlacheck::kernels
