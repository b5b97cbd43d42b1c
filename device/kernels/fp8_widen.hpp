#pragma once
// Exact widening of fp8 e4m3 codes (fn and fnuz) into the codes of the 16-bit MMA type, without
// branches: the kernels widen a whole fp8 KV tile out of shared memory every tile, so this sits on
// their critical path, where core/dtype_convert.hpp's general decoder (branches for subnormals and
// NaN) costs several times more. Host and device alike, so a host test holds every code against
// that decoder.
#include <cstdint>
#include <type_traits>

#include "core/dtype_convert.hpp"

namespace mlacheck::kernels {

template <class T>
inline constexpr bool is_fp8_type_v = std::is_same_v<T, fp8_e4m3fn_t> || std::is_same_v<T, fp8_e4m3fnuz_t>;

// The float value of an e4m3 code. A normal code's exponent and mantissa bits, moved into a float's
// exponent and mantissa fields, give its value times 2^(bias - 127): one exact product restores it.
// A subnormal code (exponent field 0) is its mantissa times 2^(-2 - bias), an exact integer
// conversion and product; the normal product's float subnormal input is then discarded, so a
// flush-to-zero mode changes nothing. NaN (fn: S.1111.111; fnuz: 0x80) decodes as the quiet NaN
// 0x7FC00000, as the general decoder does.
template <class T>
MLACHECK_HD inline float fp8_value(std::uint32_t code) {
  static_assert(is_fp8_type_v<T>);
  constexpr bool kFn = std::is_same_v<T, fp8_e4m3fn_t>;
  constexpr std::uint32_t kBias = kFn ? 7u : 8u;
  const std::uint32_t magnitude = code & 0x7Fu;
  const float normal = bits_float(magnitude << 20) * bits_float((254u - kBias) << 23);
  const float subnormal = static_cast<float>(magnitude & 7u) * bits_float((125u - kBias) << 23);
  const float unsigned_value = (magnitude >> 3) != 0u ? normal : subnormal;
  const float value = (code & 0x80u) != 0u ? -unsigned_value : unsigned_value;
  const bool nan = kFn ? magnitude == 0x7Fu : code == 0x80u;
  return nan ? bits_float(0x7FC00000u) : value;
}

// The code in S (bf16_t or f16_t) of an e4m3 code's value, the code staged_code gives. Every e4m3
// value has at most 4 significant bits and lies within f16's normal range (or is zero), so the
// float's top half is its bf16 code and its f16 code is the float's re-biased exponent and top
// mantissa bits.
template <class S, class T>
MLACHECK_HD inline std::uint16_t widened_fp8_code(std::uint32_t code) {
  const std::uint32_t bits = float_bits(fp8_value<T>(code));
  if constexpr (std::is_same_v<S, bf16_t>) {
    return static_cast<std::uint16_t>(bits >> 16);
  } else {
    static_assert(std::is_same_v<S, f16_t>, "fp8 widens to bf16 or f16 codes");
    const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
    const std::uint32_t f16_magnitude =
        magnitude > 0x7F800000u ? 0x7E00u : (magnitude == 0u ? 0u : (magnitude >> 13) - (112u << 10));
    return static_cast<std::uint16_t>(((bits >> 16) & 0x8000u) | f16_magnitude);
  }
}

}  // namespace mlacheck::kernels
