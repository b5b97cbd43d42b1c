#pragma once
// The 16-byte chunk, the unit the split-KV kernels move from global into shared memory, and the
// conversions of the elements they stage. Shared memory holds 16-bit codes only: bf16 and f16 as
// they are, fp8 e4m3 widened to bf16 while staging (exact: every e4m3 value, fn or fnuz, is a
// bf16 value), so the compute loops decode cheap 16-bit codes and the same tiles can later feed
// 16-bit matrix instructions (MFMA / mma.sync) unchanged.
// First: defines __host__ / __device__, which dtype_convert.hpp uses.
#include "device/platform/gpu_runtime.hpp"

#include <cstdint>

#include "core/dtype_convert.hpp"

namespace mlacheck::kernels {

struct alignas(16) Chunk16 {
  std::uint32_t word[4];
};

template <class T>
struct StagedTypeOf {
  using type = T;
};
template <>
struct StagedTypeOf<fp8_e4m3fn_t> {
  using type = bf16_t;
};
template <>
struct StagedTypeOf<fp8_e4m3fnuz_t> {
  using type = bf16_t;
};
// The 16-bit type a storage type T is staged in.
template <class T>
using staged_t = typename StagedTypeOf<T>::type;

// Elements of T in one chunk, and the chunks of shared memory they fill once staged.
template <class T>
inline constexpr int kChunkElems = static_cast<int>(16 / sizeof(T));
template <class T>
inline constexpr int kStagedChunks = static_cast<int>(2 / sizeof(T));

// The staged 16-bit code of one stored element. An fp8 value decodes to a float whose low 16 bits
// are zero, so its top half is its bf16 code (NaN included) with no rounding step.
template <class T>
__device__ inline std::uint16_t staged_code(T v) {
  if constexpr (sizeof(T) == 2) {
    return v.bits;
  } else {
    return static_cast<std::uint16_t>(float_bits(to_float(v)) >> 16);
  }
}

// Byte i of a chunk (i a compile-time constant in the unrolled callers).
__device__ inline std::uint32_t chunk_byte(const Chunk16& c, int i) { return (c.word[i / 4] >> (8 * (i % 4))) & 0xFFu; }

// Writes one chunk of stored elements (one global chunk) into shared memory at `dst` as staged
// codes: one chunk for 16-bit types, two for fp8. `dst` is 16-byte aligned.
template <class T>
__device__ inline void store_staged_chunk(const Chunk16& src, std::uint16_t* dst) {
  if constexpr (sizeof(T) == 2) {
    *reinterpret_cast<Chunk16*>(dst) = src;
  } else {
    Chunk16 widened[kStagedChunks<T>];
#pragma unroll
    for (int i = 0; i < 16; i += 2) {
      const std::uint32_t lo = staged_code(T{static_cast<std::uint8_t>(chunk_byte(src, i))});
      const std::uint32_t hi = staged_code(T{static_cast<std::uint8_t>(chunk_byte(src, i + 1))});
      widened[i / 8].word[(i % 8) / 2] = lo | (hi << 16);
    }
#pragma unroll
    for (int i = 0; i < kStagedChunks<T>; ++i) reinterpret_cast<Chunk16*>(dst)[i] = widened[i];
  }
}

// Zeros the shared memory one global chunk of T would fill.
template <class T>
__device__ inline void store_zero_chunk(std::uint16_t* dst) {
  const Chunk16 zero{};
#pragma unroll
  for (int i = 0; i < kStagedChunks<T>; ++i) reinterpret_cast<Chunk16*>(dst)[i] = zero;
}

// N consecutive staged codes of type S (bf16_t or f16_t) from shared memory as floats, in one
// vector read: `src` is aligned to 2*N bytes.
template <class S, int N>
__device__ inline void load_staged(const std::uint16_t* src, float (&out)[N]) {
  struct alignas(2 * N) Pack {
    std::uint16_t code[N];
  };
  const Pack pack = *reinterpret_cast<const Pack*>(src);
#pragma unroll
  for (int k = 0; k < N; ++k) out[k] = to_float(S{pack.code[k]});
}

}  // namespace mlacheck::kernels
