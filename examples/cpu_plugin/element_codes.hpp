#pragma once
// Reading and writing one element of an mlacheck_tensor in its storage dtype. The example plugin
// decodes the codes itself (it links nothing of mlacheck's), so this file is its whole codec:
// bf16 and f16 from their bit layouts, fp8 e4m3 in both flavours (OCP "fn" and AMD "fnuz"),
// and float -> bf16/f16 with round-to-nearest, ties to even, as kernels' conversions do.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "mlacheck/backend_abi.h"

namespace cpu_mla {

inline float float_from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline std::uint32_t bits_of(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

inline float bf16_to_float(std::uint16_t code) { return float_from_bits(static_cast<std::uint32_t>(code) << 16); }

inline float f16_to_float(std::uint16_t code) {
  const float sign = (code & 0x8000u) != 0 ? -1.0f : 1.0f;
  const int exponent = (code >> 10) & 0x1F;
  const int mantissa = code & 0x3FF;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);  // zero, subnormal
  if (exponent == 31) return mantissa == 0 ? sign * INFINITY : NAN;
  return sign * std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
}

// e4m3: 1 sign, 4 exponent, 3 mantissa bits. fn (bias 7) has NaN at S.1111.111 and no
// infinities; fnuz (bias 8) has a single NaN, the code of negative zero (0x80).
inline float fp8_e4m3_to_float(std::uint8_t code, bool fnuz) {
  if (fnuz ? code == 0x80u : (code & 0x7Fu) == 0x7Fu) return NAN;
  const int bias = fnuz ? 8 : 7;
  const float sign = (code & 0x80u) != 0 ? -1.0f : 1.0f;
  const int exponent = (code >> 3) & 0xF;
  const int mantissa = code & 0x7;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), 1 - bias - 3);
  return sign * std::ldexp(static_cast<float>(mantissa + 8), exponent - bias - 3);
}

// Round-to-nearest-even of the 32-bit pattern to its top 16 bits; NaN stays a quiet NaN.
inline std::uint16_t float_to_bf16(float value) {
  const std::uint32_t bits = bits_of(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  const std::uint32_t rounded = bits + 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

// Round-to-nearest-even to binary16: overflow becomes infinity, tiny values f16 subnormals.
inline std::uint16_t float_to_f16(float value) {
  const std::uint32_t bits = bits_of(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u);  // quiet NaN
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  if (exponent > 15) return static_cast<std::uint16_t>(sign | 0x7C00u);  // infinity or beyond range
  const std::uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;  // 24 bits with the hidden 1
  // Significand bits f16 cannot keep: 13 for normals, more below f16's smallest normal (2^-14).
  const int dropped = exponent >= -14 ? 13 : 13 + (-14 - exponent);
  if (dropped > 24) return sign;  // below half the smallest subnormal (float subnormals included)
  std::uint32_t kept = significand >> dropped;
  const std::uint32_t rest = significand & ((1u << dropped) - 1u);
  const std::uint32_t half = 1u << (dropped - 1);
  if (rest > half || (rest == half && (kept & 1u) != 0)) ++kept;
  // Normals: the hidden 1 in `kept` lands on the exponent field's lowest bit, so the exponent is
  // stored biased by one less; a rounding carry moves into the exponent (up to infinity) by itself.
  const std::uint32_t code = exponent >= -14 ? (static_cast<std::uint32_t>(exponent + 14) << 10) + kept : kept;
  return static_cast<std::uint16_t>(sign | code);
}

// Element `index` (in elements from data) of a tensor of `dtype`, as a float.
inline float load_element(const void* data, std::int32_t dtype, std::int64_t index) {
  switch (dtype) {
    case MLACHECK_DTYPE_F32: return static_cast<const float*>(data)[index];
    case MLACHECK_DTYPE_BF16: return bf16_to_float(static_cast<const std::uint16_t*>(data)[index]);
    case MLACHECK_DTYPE_F16: return f16_to_float(static_cast<const std::uint16_t*>(data)[index]);
    case MLACHECK_DTYPE_FP8_E4M3FN: return fp8_e4m3_to_float(static_cast<const std::uint8_t*>(data)[index], false);
    case MLACHECK_DTYPE_FP8_E4M3FNUZ: return fp8_e4m3_to_float(static_cast<const std::uint8_t*>(data)[index], true);
    default: return NAN;  // refused by supports() before any run
  }
}

inline void store_element(void* data, std::int32_t dtype, std::int64_t index, float value) {
  switch (dtype) {
    case MLACHECK_DTYPE_F32: static_cast<float*>(data)[index] = value; break;
    case MLACHECK_DTYPE_BF16: static_cast<std::uint16_t*>(data)[index] = float_to_bf16(value); break;
    case MLACHECK_DTYPE_F16: static_cast<std::uint16_t*>(data)[index] = float_to_f16(value); break;
    default: break;  // refused by supports() before any run
  }
}

}  // namespace cpu_mla
