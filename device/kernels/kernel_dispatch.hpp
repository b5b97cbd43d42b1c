#pragma once
// Host-side helpers shared by the decode launchers (.hip files only): runtime dtypes and the row
// tiles of a row group turn into template arguments of a kernel instance, and the attention
// parameters both paths pass their kernels. Each launcher checks its shape first, so reaching a case
// without a kernel is a bug in that check (std::logic_error), except a value tile past 512, which
// only the fault tile-width-from-lk asks for (the upstream failure: no kernel for the width).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/code_scales.hpp"
#include "core/dtype.hpp"
#include "core/dtype_convert.hpp"
#include "device/faults.hpp"
#include "device/kernels/attention_geometry.hpp"
#include "device/kernels/row_group_attention.hpp"
#include "device/kernels/split_kv_plan.hpp"
#include "device/platform/gpu_check.hpp"

namespace mlacheck::kernels {

template <class T>
struct TypeTag {
  using type = T;
};

[[noreturn]] inline void unreachable_dtype(const char* what, DType t) {
  throw std::logic_error(std::string("decode kernel dispatch: no kernel for ") + what + "=" +
                         std::string(to_string(t)));
}

// A runtime dtype and the storage type of the kernel instances that take it.
template <DType kDtype, class T>
struct KernelType {
  static constexpr DType dtype = kDtype;
  using type = T;
};
using Bf16Kernel = KernelType<DType::bf16, bf16_t>;
using F16Kernel = KernelType<DType::f16, f16_t>;
using Fp8E4m3fnKernel = KernelType<DType::fp8_e4m3fn, fp8_e4m3fn_t>;
using Fp8E4m3fnuzKernel = KernelType<DType::fp8_e4m3fnuz, fp8_e4m3fnuz_t>;

// Calls f(TypeTag<T>{}) with the storage type of t among the Kernels; any other dtype has no kernel.
template <class... Kernels, class F>
void with_kernel_type(const char* what, DType t, F&& f) {
  const bool found = ((t == Kernels::dtype ? (f(TypeTag<typename Kernels::type>{}), true) : false) || ...);
  if (!found) unreachable_dtype(what, t);
}

// q and O: bf16 or f16.
template <class F>
void with_16bit_type(const char* what, DType t, F&& f) {
  with_kernel_type<Bf16Kernel, F16Kernel>(what, t, f);
}

template <class F>
void with_fp8_type(const char* what, DType t, F&& f) {
  with_kernel_type<Fp8E4m3fnKernel, Fp8E4m3fnuzKernel>(what, t, f);
}

template <class F>
void with_kv_type(DType t, F&& f) {
  with_kernel_type<Bf16Kernel, F16Kernel, Fp8E4m3fnKernel, Fp8E4m3fnuzKernel>("kv_dtype", t, f);
}

// The row tiles of a kernel instance: 1, 2 or 4, as far as the platform holds them.
template <class F>
void with_row_tiles(int row_tiles, F&& f) {
  if (row_tiles == 1) return f(std::integral_constant<int, 1>{});
  if constexpr (kPlatformMaxRowTiles >= 2) {
    if (row_tiles == 2) return f(std::integral_constant<int, 2>{});
  }
  if constexpr (kPlatformMaxRowTiles >= 4) {
    if (row_tiles == 4) return f(std::integral_constant<int, 4>{});
  }
  throw std::logic_error("decode kernel dispatch: no kernel for " + std::to_string(row_tiles) + " row tiles");
}

// q and a 16-bit cache of different types: the kernels split q and P in two (latent_staging.hpp),
// which takes twice their shared memory. fp8 q comes with its own fp8 cache only and widens into
// one plane: never mixed.
inline bool mixed_dtypes(DType q, DType kv) { return storage_bytes(kv) == 2 && q != kv; }

// The row tiles the kernels of this platform hold for these dtypes (attention_geometry.hpp).
inline RowTilePolicy row_tile_policy(DType q, DType kv) {
  const bool mixed = mixed_dtypes(q, kv);
  RowTilePolicy policy;
  policy.max_row_tiles = mixed ? 1 : kPlatformMaxRowTiles;
  policy.one_tile_blocks_per_cu = blocks_per_cu(1, mixed);
  return policy;
}

// Calls f(q tag, kv tag, row tiles) for the kernel instance of a row group; instances with split q
// exist for one row tile only. The single-plane instances cannot take q of the other 16-bit type
// than the cache (it does not fit the MMA type), so mixed pairs go to the split-q ones. With
// mixed_on_single_plane (fault supports-accepts-mixed-dtypes, UPSTREAM R10) the capability check
// accepts them on the single-plane instance of the cache's type, which runs q's codes as that type.
// fp8 q has instances against a cache of its own type only (what validate() allows): its codes
// widen to bf16 as the cache's do, on single-plane instances of every row-tile count.
template <class F>
void with_attention_kernel(DType q, DType kv, int row_tiles, F&& f, bool mixed_on_single_plane = false) {
  if (is_fp8(q)) {
    if (kv != q) {
      throw std::logic_error("decode kernel dispatch: no kernel for q_dtype=" + std::string(to_string(q)) +
                             " with kv_dtype=" + std::string(to_string(kv)));
    }
    return with_fp8_type("q_dtype", q, [&](auto tag) {
      with_row_tiles(row_tiles, [&](auto tiles) { f(tag, tag, tiles); });
    });
  }
  with_16bit_type("q_dtype", q, [&](auto q_tag) {
    with_kv_type(kv, [&](auto kv_tag) {
      using Q = typename std::decay_t<decltype(q_tag)>::type;
      using KV = typename std::decay_t<decltype(kv_tag)>::type;
      if constexpr (splits_q_v<Q, KV>) {
        if (mixed_on_single_plane) {
          return with_row_tiles(row_tiles, [&](auto tiles) { f(TypeTag<mma_type_t<Q, KV>>{}, kv_tag, tiles); });
        }
        if (row_tiles != 1) throw std::logic_error("decode kernel dispatch: split q takes one row tile");
        f(q_tag, kv_tag, std::integral_constant<int, 1>{});
      } else {
        with_row_tiles(row_tiles, [&](auto tiles) { f(q_tag, kv_tag, tiles); });
      }
    });
  });
}

// Dynamic shared memory of a kernel instance, allowed past the 48 KB default before its first launch.
template <class Q, class KV, int kRowTiles>
std::size_t attention_shared_bytes() {
  return sizeof(typename RowGroupAttention<Q, KV, kRowTiles>::Shared);
}

inline void allow_shared_bytes(const void* kernel, std::size_t bytes) {
  if (bytes > 48 * 1024) {
    GPU_CHECK(hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  }
}

// The fp8 variant the platform's fp8 matrix products take (mma::Fp8MmaType): NVIDIA's are OCP
// e4m3fn, CDNA3's e4m3fnuz.
#if defined(MLACHECK_GPU_CUDA)
inline constexpr DType kPlatformFp8MmaDtype = DType::fp8_e4m3fn;
#else
inline constexpr DType kPlatformFp8MmaDtype = DType::fp8_e4m3fnuz;
#endif

// 16-byte loads need 16-byte rows and a 16-byte aligned base.
inline bool rows_vector_loadable(const void* base, int row_elems, DType t) {
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && std::size_t(row_elems) * storage_bytes(t) % 16 == 0;
}

// Scores are taken against the codes of q and the cache (score_scale = scale * kv_scale * q_scale,
// q_scale 1 for 16-bit q) and kv_scale is applied once to the normalised output. The row layout's
// widths come from the dispatch's tiles (S5). MLA's latent has one scale, keys and values alike;
// fault value-scale-k-times-v (UPSTREAM R11) dequantises the values with k_scale x v_scale, both
// filled from that one scale.
inline AttentionParams attention_params(const void* q, DType q_dtype, const void* kv_cache, DType kv_dtype, int lv,
                                        int rope, const CodeScales& scales, const LatentTiles& tiles,
                                        const FaultSet& faults) {
  if (tiles.value > kMaxValueTile) {
    throw std::logic_error("decode kernel dispatch: no kernel for value tile " + std::to_string(tiles.value));
  }
  AttentionParams t{};
  t.kv = kv_cache;
  t.lv = lv;
  t.rope = rope;
  t.value_tile = tiles.value;
  t.rope_tile = tiles.rope;
  // One float, rounded where the kernel arithmetic model rounds it (core/code_scales.hpp).
  t.score_scale = code_score_scale(scales);
  t.value_scale = faults.has(Fault::value_scale_k_times_v) ? scales.kv_scale * scales.kv_scale : scales.kv_scale;
  t.q_vector = rows_vector_loadable(q, lv + rope, q_dtype);
  t.kv_vector = rows_vector_loadable(kv_cache, lv + rope, kv_dtype);
  t.fp8_scores = q_dtype == kPlatformFp8MmaDtype && kv_dtype == q_dtype && fp8_steps_fit(lv, rope, tiles);
  return t;
}

}  // namespace mlacheck::kernels
