#include "core/dtype.hpp"

#include <cstring>

#include "core/dtype_convert.hpp"

namespace mlacheck {

std::string_view to_string(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::fp8_e4m3fn: return "fp8_e4m3fn";
    case DType::fp8_e4m3fnuz: return "fp8_e4m3fnuz";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : {DType::f32, DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
    if (name == to_string(t)) return t;
  }
  return std::nullopt;
}

std::size_t storage_bytes(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::bf16:
    case DType::f16: return 2;
    case DType::fp8_e4m3fn:
    case DType::fp8_e4m3fnuz: return 1;
  }
  return 0;
}

bool is_fp8(DType t) { return t == DType::fp8_e4m3fn || t == DType::fp8_e4m3fnuz; }

double unit_roundoff(DType t) {
  switch (t) {
    case DType::f32: return 0x1p-24;
    case DType::bf16: return 0x1p-8;
    case DType::f16: return 0x1p-11;
    case DType::fp8_e4m3fn:
    case DType::fp8_e4m3fnuz: return 0x1p-4;
  }
  return 1.0;
}

double max_finite(DType t) {
  switch (t) {
    case DType::f32: return 3.4028234663852886e38;
    case DType::bf16: return 3.3895313892515355e38;
    case DType::f16: return 65504.0;
    case DType::fp8_e4m3fn: return 448.0;
    case DType::fp8_e4m3fnuz: return 240.0;
  }
  return 0.0;
}

std::uint32_t encode(DType t, float value) {
  switch (t) {
    case DType::f32: return float_bits(value);
    case DType::bf16: return encode_float<Bf16Format>(value);
    case DType::f16: return encode_float<F16Format>(value);
    case DType::fp8_e4m3fn: return encode_float<Fp8E4M3FnFormat>(value);
    case DType::fp8_e4m3fnuz: return encode_float<Fp8E4M3FnuzFormat>(value);
  }
  return 0;
}

float decode(DType t, std::uint32_t code) {
  switch (t) {
    case DType::f32: return bits_float(code);
    case DType::bf16: return decode_float<Bf16Format>(code);
    case DType::f16: return decode_float<F16Format>(code);
    case DType::fp8_e4m3fn: return decode_float<Fp8E4M3FnFormat>(code);
    case DType::fp8_e4m3fnuz: return decode_float<Fp8E4M3FnuzFormat>(code);
  }
  return 0.0f;
}

float round_to(DType t, float value) { return decode(t, encode(t, value)); }

}  // namespace mlacheck
