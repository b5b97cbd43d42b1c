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

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// Whether a chunk holds a NaN code of T (fn: S.1111.111; fnuz: 0x80), four codes a word at a time.
template <class T>
__device__ inline bool chunk_has_fp8_nan(const Chunk16& c) {
  std::uint32_t found = 0;
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    if constexpr (std::is_same_v<T, fp8_e4m3fn_t>) {
      found |= ((c.word[w] & 0x7F7F7F7Fu) + 0x01010101u) & 0x80808080u;  // a magnitude of 0x7F carries into bit 7
    } else {
      const std::uint32_t x = c.word[w] ^ 0x80808080u;  // a zero byte where the code was 0x80
      found |= (x - 0x01010101u) & ~x & 0x80808080u;
    }
  }
  return found != 0;
}

// Codes 2p and 2p + 1 of a word of four e4m3 codes as a pair of S codes, without conversion
// instructions (which issue at a quarter of the integer rate): the code's sign goes to the 16-bit
// sign, its exponent and mantissa bits to the bottom of S's exponent field and the top of its
// mantissa. Read as S, that is the code's value times 2^-(S's bias - the code's bias) for normal
// codes and, as an S subnormal, for subnormal codes too; one exact product by the power of two
// restores the value. NaN codes would come out finite: callers send chunks with one elsewhere.
template <class S, class T, int kPair>
__device__ inline std::uint32_t e4m3_pair_by_scaling(std::uint32_t word) {
  constexpr bool kBf16 = std::is_same_v<S, bf16_t>;
  constexpr bool kFn = std::is_same_v<T, fp8_e4m3fn_t>;
  // Code 2p in byte 1, code 2p + 1 in byte 3: each sign already at its half's bit 15.
  const std::uint32_t spread = __byte_perm(word, 0u, kPair == 0 ? 0x1404u : 0x3424u);
  const std::uint32_t bits = kBf16 ? (spread & 0x80008000u) | ((spread >> 4) & 0x07F007F0u)
                                   : (spread & 0x80008000u) | ((spread >> 1) & 0x3F803F80u);
  // 2^(127 - 7) or 2^(127 - 8) in bf16; 2^(15 - 7) or 2^(15 - 8) in f16; both halves.
  constexpr std::uint32_t kScale =
      kBf16 ? (kFn ? 0x7B807B80u : 0x7B007B00u) : (kFn ? 0x5C005C00u : 0x58005800u);
  std::uint32_t out;
  if constexpr (kBf16) {
    asm("fma.rn.bf16x2 %0, %1, %2, %3;\n" : "=r"(out) : "r"(bits), "r"(kScale), "r"(0x80008000u));
  } else {
    asm("fma.rn.f16x2 %0, %1, %2, %3;\n" : "=r"(out) : "r"(bits), "r"(kScale), "r"(0x80008000u));
  }
  return out;  // + (-0) keeps the sign of a zero
}
#endif

// The codes of S (bf16_t or f16_t) of one chunk of stored fp8 elements: elements 0-7 in
// widened[0], 8-15 in widened[1]. e4m3fn on sm_89 and later takes the hardware conversion (2 to 4
// instructions a pair of codes instead of some 20); the codes are the same but for NaN's payload
// (any NaN stays a NaN, which is all a product of it can show).
template <class S, class T>
__device__ inline void widen_chunk(const Chunk16& src, Chunk16 (&widened)[2]) {
  static_assert(sizeof(T) == 1);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Integer operations and one exact product per pair, except where one conversion instruction a
  // pair does it (e4m3fn to f16 on sm_89+) and for the rare chunk with a NaN code.
  constexpr bool kConversionIsCheaper = __CUDA_ARCH__ >= 890 && std::is_same_v<S, f16_t> && std::is_same_v<T, fp8_e4m3fn_t>;
  if (!kConversionIsCheaper && !chunk_has_fp8_nan<T>(src)) {
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      widened[w / 2].word[(w % 2) * 2] = e4m3_pair_by_scaling<S, T, 0>(src.word[w]);
      widened[w / 2].word[(w % 2) * 2 + 1] = e4m3_pair_by_scaling<S, T, 1>(src.word[w]);
    }
    return;
  }
#endif
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
