// Counting what still holds the poison after a launch, for code that reads device buffers back
// itself (device tests). The codes are core/poison_codes.hpp's: written over every output buffer
// before a launch, so an element the kernel never wrote is still its code afterwards and is
// reported as unwritten instead of passing as stale data; signalling NaNs that no arithmetic or
// conversion writes, so "unwritten" and "computed NaN" stay distinguishable.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "core/poison_codes.hpp"

namespace mlacheck {

// The 16-bit fill word of a 2-byte output type (bf16, f16).
constexpr std::uint16_t poison16(DType t) { return static_cast<std::uint16_t>(poison_code(t)); }

// How many elements still hold `code` (bitwise: NaN never compares equal). T is the element as
// read back (float, a 16-bit code); Word an unsigned integer of its size.
template <class T, class Word>
std::size_t count_poisoned(std::span<const T> values, Word code) {
  static_assert(sizeof(T) == sizeof(Word) && std::is_unsigned_v<Word>, "compare an element with a code of its size");
  std::size_t count = 0;
  for (const T& value : values) {
    if (std::bit_cast<Word>(value) == code) ++count;
  }
  return count;
}

}  // namespace mlacheck
