#include "cli/option_checks.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <utility>

namespace mlacheck::cli {

namespace {

std::string range_text(double lo, double hi, bool lo_open) {
  auto number = [](double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  return std::string(lo_open ? "(" : "[") + number(lo) + ", " + number(hi) + "]";
}

bool all_digits(const std::string& s, std::size_t from) {
  if (from >= s.size()) return false;
  for (std::size_t i = from; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

CLI::Validator validator(std::function<std::optional<std::string>(const std::string&)> error_of, std::string what) {
  return CLI::Validator([error_of](std::string& value) { return error_of(value).value_or(std::string()); },
                        std::move(what));
}

}  // namespace

std::optional<std::string> whole_number_error(const std::string& text, std::int64_t lo, std::int64_t hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  const bool negative = !text.empty() && text[0] == '-';
  if (!all_digits(text, negative && lo < 0 ? 1 : 0)) return "'" + text + "' is not a whole number in " + range;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi) {
    return "'" + text + "' is not in " + range;
  }
  return std::nullopt;
}

std::optional<std::string> unsigned_64_error(const std::string& text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (!all_digits(text, 0) || ec != std::errc() || end != text.data() + text.size()) {
    return "'" + text + "' is not a whole number in [0, 18446744073709551615]";
  }
  return std::nullopt;
}

std::optional<std::string> finite_number_error(const std::string& text, double lo, double hi, bool lo_open) {
  const std::string range = range_text(lo, hi, lo_open);
  double v = 0.0;
  // strtod, not from_chars: it reads what CLI11 reads (hex floats included), and NaN/inf are then
  // refused by name rather than by a parse failure.
  char* end = nullptr;
  if (!text.empty() && text.find_first_of(" \t\n") == std::string::npos) v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number in " + range;
  if (!std::isfinite(v)) return "'" + text + "' is not finite: a number in " + range + " is needed";
  if (v < lo || (lo_open && v == lo) || v > hi) return "'" + text + "' is not in " + range;
  return std::nullopt;
}

CLI::Validator whole_number(std::int64_t lo, std::int64_t hi) {
  return validator([lo, hi](const std::string& t) { return whole_number_error(t, lo, hi); },
                   "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator unsigned_64() { return validator(unsigned_64_error, "UINT64"); }

CLI::Validator finite_number(double lo, double hi, bool lo_open) {
  return validator([lo, hi, lo_open](const std::string& t) { return finite_number_error(t, lo, hi, lo_open); },
                   "NUMBER in " + range_text(lo, hi, lo_open));
}

}  // namespace mlacheck::cli
