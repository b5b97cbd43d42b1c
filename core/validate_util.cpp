#include "core/validate_util.hpp"

#include "core/error.hpp"

namespace mlacheck {

void fail_field(std::string_view op, std::string_view field, const std::string& value, std::string reason) {
  throw InvalidProblem(std::string(op), std::string(field), value, std::move(reason));
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::vector<int> prefix_sums(const std::vector<int>& v) {
  std::vector<int> out(v.size() + 1, 0);
  for (std::size_t i = 0; i < v.size(); ++i) out[i + 1] = out[i] + v[i];
  return out;
}

DType take_dtype(repro::Reader& r, std::string_view key, DType fallback) {
  auto v = r.take(key);
  if (!v) return fallback;
  if (auto t = parse_dtype(*v)) return *t;
  throw ReproParseError("key '" + std::string(key) + "': '" + *v +
                        "' is not one of f32, bf16, f16, fp8_e4m3fn, fp8_e4m3fnuz");
}

FillMode take_fill_mode(repro::Reader& r, FillMode fallback) {
  auto v = r.take("fill");
  if (!v) return fallback;
  if (*v == "random") return FillMode::random;
  if (*v == "exact") return FillMode::exact;
  throw ReproParseError("key 'fill': '" + *v + "' is not one of random, exact");
}

bool take_bool(repro::Reader& r, std::string_view key, bool fallback) {
  auto v = r.take(key);
  if (!v) return fallback;
  if (*v == "1") return true;
  if (*v == "0") return false;
  throw ReproParseError("key '" + std::string(key) + "': '" + *v + "' is not 0 or 1");
}

}  // namespace mlacheck
