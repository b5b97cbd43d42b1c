#pragma once
// The 16-byte chunk, the unit the decode kernels move from global into shared memory, and the
// conversions of the elements they stage. Shared memory holds 16-bit codes of the MMA type only:
// the cache's own type when it is 16-bit, q's type for an fp8 cache and 16-bit q, bf16 for fp8 q
// and its fp8 cache (exact: every e4m3 value, fn or fnuz, is a bf16 and an f16 value). q of the
// other 16-bit type than the cache is staged as a high and a low part (latent_staging.hpp), and so
// is P.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>
#include <type_traits>

#include "core/dtype_convert.hpp"
#include "device/kernels/fp8_widen.hpp"

namespace mlacheck::kernels {

struct alignas(16) Chunk16 {
  std::uint32_t word[4];
};

// The 16-bit type the matrix products of q (type Q) and a cache of type KV run in. fp8 q (only
// ever against a cache of its own fp8 type) and that cache both widen exactly to bf16: bf16 rather
// than f16 because P is rounded to this type, and the rounding point declared for fp8 queries is P
// in bf16 (core/rounding_points.cpp, resolve_p_rounding).
template <class Q, class KV>
using mma_type_t = std::conditional_t<sizeof(KV) == 2, KV, std::conditional_t<sizeof(Q) == 2, Q, bf16_t>>;

// Whether q is staged as a high and a low plane: 16-bit q of the other type than the MMA type (the
// other 16-bit type than the cache). fp8 q widens exactly into one plane of the MMA type.
template <class Q, class KV>
inline constexpr bool splits_q_v = sizeof(Q) == 2 && !std::is_same_v<Q, mma_type_t<Q, KV>>;

// Elements of T in one chunk.
template <class T>
inline constexpr int kChunkElems = static_cast<int>(16 / sizeof(T));

// The code in S (bf16_t or f16_t) of a stored element whose value S holds exactly.
template <class S, class T>
__device__ inline std::uint16_t staged_code(T v) {
  if constexpr (std::is_same_v<S, T>) {
    return v.bits;
  } else if constexpr (is_fp8_type_v<T>) {
    return widened_fp8_code<S, T>(v.bits);
  } else {
    return from_float<S>(to_float(v)).bits;
  }
}

// Byte i of a chunk (i a compile-time constant in the unrolled callers).
__device__ inline std::uint32_t chunk_byte(const Chunk16& c, int i) { return (c.word[i / 4] >> (8 * (i % 4))) & 0xFFu; }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
// sm_89 and later convert two e4m3fn codes (the low and high byte of `pair`) to f16 in one
// instruction, exactly (every e4m3 value is an f16 normal or zero; NaN stays NaN).
__device__ inline std::uint32_t e4m3fn_pair_to_f16x2(std::uint32_t pair) {
  std::uint32_t out;
  asm("{\n.reg .b16 pair;\ncvt.u16.u32 pair, %1;\ncvt.rn.f16x2.e4m3x2 %0, pair;\n}\n" : "=r"(out) : "r"(pair));
  return out;
}

// The two f16 codes of `halves` as bf16 codes, through float: exact for values of at most 8
// significant bits, as every e4m3 value is.
__device__ inline std::uint32_t f16x2_to_bf16x2(std::uint32_t halves) {
  std::uint32_t out;
  asm("{\n.reg .b16 lo, hi;\n.reg .f32 flo, fhi;\nmov.b32 {lo, hi}, %1;\ncvt.f32.f16 flo, lo;\n"
      "cvt.f32.f16 fhi, hi;\ncvt.rn.bf16x2.f32 %0, fhi, flo;\n}\n"
      : "=r"(out)
      : "r"(halves));
  return out;
}
#endif

// The codes of S (bf16_t or f16_t) of one chunk of stored fp8 elements: elements 0-7 in
// widened[0], 8-15 in widened[1]. e4m3fn on sm_89 and later takes the hardware conversion (2 to 4
// instructions a pair of codes instead of some 20); the codes are the same but for NaN's payload
// (any NaN stays a NaN, which is all a product of it can show).
template <class S, class T>
__device__ inline void widen_chunk(const Chunk16& src, Chunk16 (&widened)[2]) {
  static_assert(sizeof(T) == 1);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if constexpr (std::is_same_v<T, fp8_e4m3fn_t>) {
#pragma unroll
    for (int w = 0; w < 4; ++w) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const std::uint32_t f16x2 = e4m3fn_pair_to_f16x2(src.word[w] >> (16 * half));
        widened[w / 2].word[(w % 2) * 2 + half] = std::is_same_v<S, f16_t> ? f16x2 : f16x2_to_bf16x2(f16x2);
      }
    }
  } else
#endif
  {
#pragma unroll
    for (int i = 0; i < 16; i += 2) {
      const std::uint32_t lo = widened_fp8_code<S, T>(chunk_byte(src, i));
      const std::uint32_t hi = widened_fp8_code<S, T>(chunk_byte(src, i + 1));
      widened[i / 8].word[(i % 8) / 2] = lo | (hi << 16);
    }
  }
}

// Writes one chunk of stored fp8 elements as codes of S into shared memory at `dst` (two chunks,
// 16-byte aligned).
template <class S, class T>
__device__ inline void store_widened_chunk(const Chunk16& src, std::uint16_t* dst) {
  Chunk16 widened[2];
  widen_chunk<S, T>(src, widened);
  reinterpret_cast<Chunk16*>(dst)[0] = widened[0];
  reinterpret_cast<Chunk16*>(dst)[1] = widened[1];
}

}  // namespace mlacheck::kernels
