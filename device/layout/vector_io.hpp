#pragma once
// Loads and stores of a short run of N elements as the widest accesses the run allows: 16-byte
// vectors for runs of 16 bytes or more, one 8/4/2/1-byte word below that. The caller guarantees
// the pointer is aligned to the access (the launchers' plans check strides and buffers).
#include <cstdint>

#include "device/platform/gpu_runtime.hpp"

namespace mlacheck::layout {

template <int kBytes>
struct Word;
template <>
struct Word<1> {
  using type = std::uint8_t;
};
template <>
struct Word<2> {
  using type = std::uint16_t;
};
template <>
struct Word<4> {
  using type = std::uint32_t;
};
template <>
struct Word<8> {
  using type = uint2;
};
template <>
struct Word<16> {
  using type = uint4;
};

template <class T, int N>
__device__ inline void load_run(const T* src, T (&dst)[N]) {
  constexpr int kBytes = N * static_cast<int>(sizeof(T));
  constexpr int kAccess = kBytes < 16 ? kBytes : 16;
  static_assert(kBytes % kAccess == 0, "runs of 16 bytes or more are whole vectors");
  using Access = typename Word<kAccess>::type;
#pragma unroll
  for (int i = 0; i < kBytes / kAccess; ++i) {
    const Access word = reinterpret_cast<const Access*>(src)[i];
    __builtin_memcpy(reinterpret_cast<unsigned char*>(dst) + i * kAccess, &word, kAccess);
  }
}

template <class T, int N>
__device__ inline void store_run(T* dst, const T (&src)[N]) {
  constexpr int kBytes = N * static_cast<int>(sizeof(T));
  constexpr int kAccess = kBytes < 16 ? kBytes : 16;
  static_assert(kBytes % kAccess == 0, "runs of 16 bytes or more are whole vectors");
  using Access = typename Word<kAccess>::type;
#pragma unroll
  for (int i = 0; i < kBytes / kAccess; ++i) {
    Access word;
    __builtin_memcpy(&word, reinterpret_cast<const unsigned char*>(src) + i * kAccess, kAccess);
    reinterpret_cast<Access*>(dst)[i] = word;
  }
}

}  // namespace mlacheck::layout
