#pragma once
// Host-side helpers shared by the decode launchers (.hip files only): runtime dtypes and the value
// tile width turn into template arguments of a kernel instance, and the head-tile parameters both
// paths pass their kernels. Each launcher checks its shape first, so reaching a case without a
// kernel is a bug in that check (std::logic_error).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/dtype.hpp"
#include "core/dtype_convert.hpp"
#include "device/kernels/head_tile_attention.hpp"
#include "device/kernels/split_kv_plan.hpp"

namespace mlacheck::kernels {

template <class T>
struct TypeTag {
  using type = T;
};

[[noreturn]] inline void unreachable_dtype(const char* what, DType t) {
  throw std::logic_error(std::string("decode kernel dispatch: no kernel for ") + what + "=" +
                         std::string(to_string(t)));
}

// q and O: bf16 or f16.
template <class F>
void with_16bit_type(const char* what, DType t, F&& f) {
  switch (t) {
    case DType::bf16:
      return f(TypeTag<bf16_t>{});
    case DType::f16:
      return f(TypeTag<f16_t>{});
    default:
      unreachable_dtype(what, t);
  }
}

template <class F>
void with_kv_type(DType t, F&& f) {
  switch (t) {
    case DType::bf16:
      return f(TypeTag<bf16_t>{});
    case DType::f16:
      return f(TypeTag<f16_t>{});
    case DType::fp8_e4m3fn:
      return f(TypeTag<fp8_e4m3fn_t>{});
    case DType::fp8_e4m3fnuz:
      return f(TypeTag<fp8_e4m3fnuz_t>{});
    default:
      unreachable_dtype("kv_dtype", t);
  }
}

template <class F>
void with_value_tile(int tile, F&& f) {
  switch (tile) {
    case 16:
      return f(std::integral_constant<int, 16>{});
    case 32:
      return f(std::integral_constant<int, 32>{});
    case 64:
      return f(std::integral_constant<int, 64>{});
    case 128:
      return f(std::integral_constant<int, 128>{});
    case 256:
      return f(std::integral_constant<int, 256>{});
    case 512:
      return f(std::integral_constant<int, 512>{});
    default:
      throw std::logic_error("decode kernel dispatch: no kernel for value tile " + std::to_string(tile));
  }
}

// 16-byte loads need 16-byte rows and a 16-byte aligned base.
inline bool rows_vector_loadable(const void* base, int row_elems, DType t) {
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && std::size_t(row_elems) * storage_bytes(t) % 16 == 0;
}

// Scores are taken against the cache codes (score_scale = scale * kv_scale) and kv_scale is applied
// once to the normalised output.
inline HeadTileParams head_tile_params(const void* q, DType q_dtype, const void* kv_cache, DType kv_dtype, int lv,
                                       int rope, float scale, float kv_scale) {
  HeadTileParams t{};
  t.kv = kv_cache;
  t.lv = lv;
  t.rope = rope;
  t.rope_tile = rope_tile_width(rope);
  t.score_scale = scale * kv_scale;
  t.value_scale = kv_scale;
  t.q_vector = rows_vector_loadable(q, lv + rope, q_dtype);
  t.kv_vector = rows_vector_loadable(kv_cache, lv + rope, kv_dtype);
  return t;
}

}  // namespace mlacheck::kernels
