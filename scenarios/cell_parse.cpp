#include "scenarios/cell_parse.hpp"

#include <algorithm>
#include <charconv>

namespace mlacheck::scenarios {

namespace {

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

}  // namespace

std::int64_t parse_int_cell(std::string_view text, std::int64_t min, std::int64_t max) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) throw CellError(quoted(text) + " is out of range");
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw CellError(quoted(text) + " is not an integer");
  }
  if (value < min || value > max) {
    throw CellError(quoted(text) + " must be in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return value;
}

std::uint64_t parse_u64_cell(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw CellError(quoted(text) + " is not an unsigned 64-bit integer");
  }
  return value;
}

std::vector<int> parse_int_list_cell(std::string_view text, int min, int max) {
  std::vector<int> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t star = item.find('*');
    try {
      const int value = static_cast<int>(parse_int_cell(item.substr(0, star), min, max));
      // No descriptor holds more than 65536 requests (validate()), so no run needs to be longer.
      const auto count = star == std::string_view::npos ? 1 : parse_int_cell(item.substr(star + 1), 1, 65536);
      values.insert(values.end(), static_cast<std::size_t>(count), value);
    } catch (const CellError& e) {
      throw CellError("item " + quoted(item) + " of the list " + quoted(text) + ": " + e.what());
    }
    start = comma + 1;
  }
  return values;
}

float parse_float_cell(std::string_view text) {
  float value = 0.0f;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) throw CellError(quoted(text) + " is out of a float's range");
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw CellError(quoted(text) + " is not a number");
  }
  return value;
}

bool parse_bool_cell(std::string_view text) {
  if (text == "1" || text == "true") return true;
  if (text == "0" || text == "false") return false;
  throw CellError(quoted(text) + " is not one of 0, 1, false, true");
}

DType parse_dtype_cell(std::string_view text) {
  if (auto t = parse_dtype(text)) return *t;
  throw CellError(quoted(text) + " is not a dtype (f32, bf16, f16, fp8_e4m3fn, fp8_e4m3fnuz)");
}

}  // namespace mlacheck::scenarios
