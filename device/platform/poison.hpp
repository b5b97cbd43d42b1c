// Poison patterns for outputs: written over every output buffer before a launch, so an element
// the kernel never wrote is still the pattern afterwards and is reported as unwritten instead of
// passing as stale data. The patterns are NaN in every output type we have (bf16 and fp16 share
// 0x7FFF; fp32 0x7FFFFFFF), and differ from the canonical NaNs arithmetic produces (0x7FC0,
// 0x7E00, 0x7FC00000), so "unwritten" and "computed NaN" stay distinguishable.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

namespace mlacheck {

inline constexpr std::uint16_t kPoison16 = 0x7FFF;
inline constexpr std::uint32_t kPoison32 = 0x7FFF'FFFF;

// The pattern for elements of type T (2 or 4 bytes: bf16/fp16 storage types, float, int32).
template <class T>
constexpr auto poison_pattern() {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "poison patterns exist for 2- and 4-byte elements");
  if constexpr (sizeof(T) == 2) {
    return kPoison16;
  } else {
    return kPoison32;
  }
}

// How many elements still hold the poison pattern (bitwise: NaN never compares equal).
template <class T>
std::size_t count_poisoned(std::span<const T> values) {
  constexpr auto pattern = poison_pattern<T>();
  std::size_t count = 0;
  for (const T& value : values) {
    if (std::bit_cast<std::remove_const_t<decltype(pattern)>>(value) == pattern) ++count;
  }
  return count;
}

}  // namespace mlacheck
