#pragma once
// The launchers' side of the Hopper kernels (.hip files only): whether the device loaded code with
// them, and a launch's case as wgmma_kernel_fits sees it. Both decode paths ask the same rule.
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/dtype.hpp"
#include "device/kernels/kernel_dispatch.hpp"
#include "device/kernels/row_group_attention.hpp"
#include "device/kernels/wgmma_dispatch.hpp"

namespace mlacheck::kernels {

// Whether the code the runtime loaded for the current device was built for sm_90a (read once per
// device from a flag of that code; split_kv_decode.hip). False in HIP builds.
bool wgmma_built_for_device();

inline WgmmaCandidate wgmma_candidate(DType q_dtype, DType kv_dtype, const AttentionParams& t, int row_tiles) {
  WgmmaCandidate c;
  c.q_dtype = q_dtype;
  c.kv_dtype = kv_dtype;
  c.lv = t.lv;
  c.rope = t.rope;
  c.value_tile = t.value_tile;
  c.rope_tile = t.rope_tile;
  c.row_tiles = row_tiles;
  c.precision = t.precision;
  c.cache_offset_32bit = t.cache_offset_32bit;
  c.q_vector = t.q_vector;
  c.kv_vector = t.kv_vector;
  return c;
}

// Calls f(Q tag, KV tag, Lv constant) for the split-KV Hopper instance of a launch
// wgmma_kernel_fits accepted.
template <class F>
void with_wgmma_instance(DType q, DType kv, int lv, F&& f) {
  const auto with_lv = [&](auto q_tag, auto kv_tag) {
    using KV = typename decltype(kv_tag)::type;
    if (lv == 512) return f(q_tag, kv_tag, std::integral_constant<int, 512>{});
    if constexpr (sizeof(KV) == 2) {
      if (lv == 256) return f(q_tag, kv_tag, std::integral_constant<int, 256>{});
    }
    throw std::logic_error("decode kernel dispatch: no Hopper kernel for Lv " + std::to_string(lv) +
                           " with kv_dtype=" + std::string(to_string(kv)));
  };
  if (!is_fp8(kv)) return with_16bit_type("q_dtype", q, [&](auto tag) { with_lv(tag, tag); });
  with_fp8_type("kv_dtype", kv, [&](auto kv_tag) {
    if (q == kv) return with_lv(kv_tag, kv_tag);
    if (q == DType::bf16) return with_lv(TypeTag<bf16_t>{}, kv_tag);
    throw std::logic_error("decode kernel dispatch: no Hopper kernel for q_dtype=" + std::string(to_string(q)) +
                           " with kv_dtype=" + std::string(to_string(kv)));
  });
}

}  // namespace mlacheck::kernels
