#pragma once
// The codes every output (and intermediate) buffer is filled with before a kernel runs, so that
// an element the kernel never wrote still holds its code afterwards and reads as "never written"
// rather than as a value. The one definition: staging (host and device memory), the platform's
// device buffers, the C API (mlacheck_poison_word) and Python (mlacheck.poison_code, through the
// C API) all take their codes from here.
//
// A poison code must be a NaN of its type (so a kernel that reads it poisons its result) that no
// conversion and no arithmetic writes, or a kernel's NaN would pass for an unwritten element.
// Every arithmetic operation and every narrowing conversion quiets a NaN, so the 16- and 32-bit
// codes are signalling NaNs (quiet bit clear, payload non-zero). What each vendor's conversion
// writes for a NaN, and why these payloads, is in docs/tolerance.md ("Poison codes").
// fp8 e4m3 has no signalling NaNs (fn: S.1111.111 only, fnuz: 0x80 only), so its poison is the
// NaN code conversions write too: for fp8 tensors "unwritten" also counts written NaNs.
#include <cstdint>

#include "core/dtype.hpp"

namespace mlacheck {

// f32: signalling (bit 22 clear), payload 0x25A5A5. The low 16 bits are non-zero, so no widening of a
// bf16 or f16 code (which leaves them zero) gives it.
inline constexpr std::uint32_t kPoisonF32 = 0x7FA5A5A5u;
// bf16: signalling (bit 6 clear), payload 0x1A. Truncating kPoisonF32 gives 0x7FA5 (AMD's
// payload-keeping rule) or 0x7FA6 (a rounding add with no NaN check): a kernel that copies
// unwritten f32 into bf16 writes neither as the bf16 poison.
inline constexpr std::uint16_t kPoisonBf16 = 0x7F9Au;
// f16: signalling (bit 9 clear), payload 0x0D2. kPoisonF32 narrowed keeping its payload gives 0x7D2D
// (NumPy) or 0x7F2D (quieted): neither is it.
inline constexpr std::uint16_t kPoisonF16 = 0x7CD2u;
inline constexpr std::uint8_t kPoisonFp8E4M3Fn = 0x7Fu;    // the positive NaN
inline constexpr std::uint8_t kPoisonFp8E4M3Fnuz = 0x80u;  // the only NaN
// int32 intermediates (page indices, indptrs, plans): an index nobody wrote is far out of range.
inline constexpr std::uint32_t kPoisonIndex = 0x7FFFFFFFu;

// One element's poison code in t.
constexpr std::uint32_t poison_code(DType t) {
  switch (t) {
    case DType::f32: return kPoisonF32;
    case DType::bf16: return kPoisonBf16;
    case DType::f16: return kPoisonF16;
    case DType::fp8_e4m3fn: return kPoisonFp8E4M3Fn;
    case DType::fp8_e4m3fnuz: return kPoisonFp8E4M3Fnuz;
  }
  return kPoisonF32;
}

// The code repeated over a 32-bit word (bf16 0x7F9A7F9A, fp8 fn 0x7F7F7F7F): the fill pattern of a
// buffer of t, as mlacheck_poison_word hands it out.
constexpr std::uint32_t poison_word(DType t) {
  const std::uint32_t code = poison_code(t);
  switch (t) {
    case DType::bf16:
    case DType::f16: return code * 0x10001u;
    case DType::fp8_e4m3fn:
    case DType::fp8_e4m3fnuz: return code * 0x01010101u;
    case DType::f32: break;
  }
  return code;
}

}  // namespace mlacheck
