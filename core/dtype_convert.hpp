#pragma once
// Bit-exact conversions between float and the storage dtypes (bf16, fp16, fp8 e4m3 fn/fnuz).
//
// This header is shared by host code and by device kernels (HIP on AMD, the same source as CUDA
// on NVIDIA), so the conversions are one implementation, identical on both platforms and on the
// CPU. It uses integer bit manipulation only: no platform half/bfloat types, no rounding-mode
// dependent arithmetic, no <cmath>.
//
// Rules (stated once, pinned by tests/dtype_convert_test.cpp):
// - Rounding is round-to-nearest, ties to even, for every narrowing conversion.
// - bf16 and fp16 have infinities: finite values that round past the largest finite value become
//   +-inf, infinities stay infinities (IEEE 754 behaviour).
// - fp8 e4m3 has no infinities, and we saturate ("satfinite", as MI300's and Hopper's saturating
//   cvt and vLLM's clamping quantisers do): finite overflow and +-inf become +-max
//   (448 for fn, 240 for fnuz).
// - NaN stays NaN: bf16/fp16 keep the sign and the top payload bits and set the quiet bit; fp8 fn
//   encodes every NaN as 0x7F, fp8 fnuz as 0x80 (its only NaN).
// - fnuz has no negative zero: -0 and negative values that round to zero encode as 0x00.
// - float subnormals lie far below the fp16 and fp8 subnormal ranges and encode there as (signed)
//   zero; bf16 shares float's exponent range, so they round to bf16 subnormals like any value.
#include <cstdint>

// core knows no GPU headers: clang (HIP) takes the attributes themselves, which its __host__ and
// __device__ macros expand to, so a kernel may include this before the runtime; nvcc defines
// __host__/__device__ in every translation unit it compiles.
#if defined(__HIPCC__) && defined(__clang__)
#define MLACHECK_HD __attribute__((host)) __attribute__((device))
#elif defined(__CUDACC__)
#define MLACHECK_HD __host__ __device__
#else
#define MLACHECK_HD
#endif

namespace mlacheck {

MLACHECK_HD inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
}

MLACHECK_HD inline float bits_float(std::uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}

// A small binary floating-point format: sign, kExpBits exponent bits, kMantBits mantissa bits.
struct Bf16Format {
  static constexpr int kExpBits = 8, kMantBits = 7, kBias = 127;
  static constexpr std::uint32_t kMaxFinite = 0x7F7F, kInf = 0x7F80;
  static constexpr bool kHasInf = true, kHasNegativeZero = true;
};
struct F16Format {
  static constexpr int kExpBits = 5, kMantBits = 10, kBias = 15;
  static constexpr std::uint32_t kMaxFinite = 0x7BFF, kInf = 0x7C00;
  static constexpr bool kHasInf = true, kHasNegativeZero = true;
};
// OCP FP8 E4M3 ("fn": finite, NaN only at S.1111.111), max 448.
struct Fp8E4M3FnFormat {
  static constexpr int kExpBits = 4, kMantBits = 3, kBias = 7;
  static constexpr std::uint32_t kMaxFinite = 0x7E, kNaN = 0x7F;
  static constexpr bool kHasInf = false, kHasNegativeZero = true;
  MLACHECK_HD static constexpr bool is_nan(std::uint32_t code) { return (code & 0x7Fu) == 0x7Fu; }
};
// FP8 E4M3 "fnuz" (AMD MI300): bias 8, the negative-zero code 0x80 is the only NaN, max 240.
struct Fp8E4M3FnuzFormat {
  static constexpr int kExpBits = 4, kMantBits = 3, kBias = 8;
  static constexpr std::uint32_t kMaxFinite = 0x7F, kNaN = 0x80;
  static constexpr bool kHasInf = false, kHasNegativeZero = false;
  MLACHECK_HD static constexpr bool is_nan(std::uint32_t code) { return code == 0x80u; }
};

namespace detail {

template <class F>
MLACHECK_HD inline constexpr std::uint32_t sign_shift() {
  return static_cast<std::uint32_t>(F::kExpBits + F::kMantBits);
}

template <class F>
MLACHECK_HD inline std::uint32_t encode_nan(std::uint32_t sign, std::uint32_t abs_bits) {
  if constexpr (F::kHasInf) {
    // Keep the top payload bits, force the quiet bit so the result is a NaN even if the payload
    // was only in the dropped bits.
    constexpr std::uint32_t drop = 23u - F::kMantBits;
    const std::uint32_t quiet = 1u << (F::kMantBits - 1);
    return (sign << sign_shift<F>()) | F::kInf | quiet | ((abs_bits & 0x7FFFFFu) >> drop);
  } else {
    (void)sign;
    (void)abs_bits;
    return F::kNaN;
  }
}

template <class F>
MLACHECK_HD inline std::uint32_t encode_overflow(std::uint32_t sign) {
  if constexpr (F::kHasInf) {
    return (sign << sign_shift<F>()) | F::kInf;
  } else {
    return (sign << sign_shift<F>()) | F::kMaxFinite;
  }
}

}  // namespace detail

// float -> code of format F, round-to-nearest-even, rules above.
// bf16 shares float's exponent range (float subnormals are bf16 subnormals), so rounding is a
// plain add-and-truncate of the low 16 bits.
MLACHECK_HD inline std::uint32_t encode_bf16(float value) {
  const std::uint32_t bits = float_bits(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return ((bits >> 16) | 0x40u) & 0xFFFFu;
  const std::uint32_t rounding_bias = 0x7FFFu + ((bits >> 16) & 1u);
  return ((bits + rounding_bias) >> 16) & 0xFFFFu;
}

template <class F>
MLACHECK_HD inline std::uint32_t encode_float(float value) {
  if constexpr (F::kExpBits == 8) return encode_bf16(value);
  const std::uint32_t bits = float_bits(value);
  const std::uint32_t sign = bits >> 31;
  const std::uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return detail::encode_nan<F>(sign, abs_bits);
  if (abs_bits == 0x7F800000u) return detail::encode_overflow<F>(sign);

  const std::uint32_t zero = F::kHasNegativeZero ? (sign << detail::sign_shift<F>()) : 0u;
  const int exp_field = static_cast<int>(abs_bits >> 23);
  if (exp_field == 0) return zero;  // float zero or float subnormal: below every target's range

  const int exponent = exp_field - 127;
  const std::uint32_t significand = (abs_bits & 0x7FFFFFu) | 0x800000u;  // 24 bits
  const int min_normal_exponent = 1 - F::kBias;
  // Bits of the 24-bit significand that do not fit the target (more for target subnormals).
  int shift = 23 - F::kMantBits;
  if (exponent < min_normal_exponent) shift += min_normal_exponent - exponent;
  if (shift > 24) return zero;  // below half the smallest subnormal

  std::uint32_t q = significand >> shift;
  const std::uint32_t rem = significand & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;

  std::uint32_t magnitude;
  if (exponent >= min_normal_exponent) {
    // q in [2^M, 2^(M+1)]; a carry out of the mantissa bumps the exponent by itself.
    magnitude = (static_cast<std::uint32_t>(exponent + F::kBias) << F::kMantBits) + q - (1u << F::kMantBits);
  } else {
    magnitude = q;  // subnormal; q == 2^M encodes the smallest normal
  }
  if (magnitude > F::kMaxFinite) return detail::encode_overflow<F>(sign);
  if (magnitude == 0) return zero;
  return (sign << detail::sign_shift<F>()) | magnitude;
}

// code of format F -> float (exact: every value of these formats is a float).
template <class F>
MLACHECK_HD inline float decode_float(std::uint32_t code) {
  if constexpr (F::kExpBits == 8) return bits_float(code << 16);
  constexpr std::uint32_t mant_mask = (1u << F::kMantBits) - 1u;
  constexpr std::uint32_t exp_mask = (1u << F::kExpBits) - 1u;
  const std::uint32_t sign = (code >> detail::sign_shift<F>()) & 1u;
  const std::uint32_t exp_field = (code >> F::kMantBits) & exp_mask;
  const std::uint32_t mant = code & mant_mask;
  if constexpr (F::kHasInf) {
    if (exp_field == exp_mask) {
      return bits_float((sign << 31) | 0x7F800000u | (mant << (23 - F::kMantBits)));
    }
  } else {
    if (F::is_nan(code)) return bits_float(0x7FC00000u);
  }
  std::uint32_t out;
  if (exp_field != 0) {
    out = (sign << 31) | ((exp_field - F::kBias + 127u) << 23) | (mant << (23 - F::kMantBits));
    return bits_float(out);
  }
  // Subnormal: mant * 2^(1 - bias - M), a normal float; product by a power of two is exact.
  const float scale = bits_float(static_cast<std::uint32_t>(127 + 1 - F::kBias - F::kMantBits) << 23);
  const float magnitude = static_cast<float>(mant) * scale;
  return sign ? -magnitude : magnitude;
}

// The project's storage types: plain bit containers, identical on host, AMD and NVIDIA.
struct bf16_t {
  std::uint16_t bits;
};
struct f16_t {
  std::uint16_t bits;
};
struct fp8_e4m3fn_t {
  std::uint8_t bits;
};
struct fp8_e4m3fnuz_t {
  std::uint8_t bits;
};

MLACHECK_HD inline float to_float(float v) { return v; }
MLACHECK_HD inline float to_float(bf16_t v) { return decode_float<Bf16Format>(v.bits); }
MLACHECK_HD inline float to_float(f16_t v) { return decode_float<F16Format>(v.bits); }
MLACHECK_HD inline float to_float(fp8_e4m3fn_t v) { return decode_float<Fp8E4M3FnFormat>(v.bits); }
MLACHECK_HD inline float to_float(fp8_e4m3fnuz_t v) { return decode_float<Fp8E4M3FnuzFormat>(v.bits); }

template <class T>
MLACHECK_HD inline T from_float(float v);
template <>
MLACHECK_HD inline float from_float<float>(float v) { return v; }
template <>
MLACHECK_HD inline bf16_t from_float<bf16_t>(float v) {
  return bf16_t{static_cast<std::uint16_t>(encode_float<Bf16Format>(v))};
}
template <>
MLACHECK_HD inline f16_t from_float<f16_t>(float v) {
  return f16_t{static_cast<std::uint16_t>(encode_float<F16Format>(v))};
}
template <>
MLACHECK_HD inline fp8_e4m3fn_t from_float<fp8_e4m3fn_t>(float v) {
  return fp8_e4m3fn_t{static_cast<std::uint8_t>(encode_float<Fp8E4M3FnFormat>(v))};
}
template <>
MLACHECK_HD inline fp8_e4m3fnuz_t from_float<fp8_e4m3fnuz_t>(float v) {
  return fp8_e4m3fnuz_t{static_cast<std::uint8_t>(encode_float<Fp8E4M3FnuzFormat>(v))};
}

}  // namespace mlacheck
