#pragma once
// Runtime description of the storage dtypes a problem names, and host conversions through the
// bit-exact codecs of dtype_convert.hpp.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mlacheck {

enum class DType : std::uint8_t { f32, bf16, f16, fp8_e4m3fn, fp8_e4m3fnuz };

// Canonical names used in repro strings, CSV and reports: "f32", "bf16", "f16", "fp8_e4m3fn",
// "fp8_e4m3fnuz".
std::string_view to_string(DType t);
std::optional<DType> parse_dtype(std::string_view name);

std::size_t storage_bytes(DType t);
bool is_fp8(DType t);
// Unit roundoff u = 2^-(mantissa bits + 1): the largest relative error of one rounding to t.
double unit_roundoff(DType t);
// Largest finite value.
double max_finite(DType t);

// Host codecs over the runtime dtype (the same code the kernels run, see dtype_convert.hpp).
std::uint32_t encode(DType t, float value);
float decode(DType t, std::uint32_t code);
// Nearest value of t (as a float), with t's overflow and NaN rules.
float round_to(DType t, float value);

}  // namespace mlacheck
