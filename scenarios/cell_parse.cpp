#include "scenarios/cell_parse.hpp"

#include <charconv>
#include <string>

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

}  // namespace mlacheck::scenarios
