#include "core/repro_format.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

#include "core/error.hpp"

namespace mlacheck::repro {

namespace {

constexpr std::size_t kMaxListLength = 1u << 20;

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

template <class T>
T parse_number(std::string_view key, std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw ReproParseError("key " + quote(key) + ": " + quote(text) + " is not a valid number");
  }
  return value;
}

}  // namespace

Writer::Writer(std::string_view op) : out_(op) { out_ += ':'; }

Writer& Writer::field(std::string_view key, std::string_view value) {
  if (!first_) out_ += ';';
  first_ = false;
  out_.append(key).append("=").append(value);
  return *this;
}
Writer& Writer::field(std::string_view key, std::int64_t value) { return field(key, std::to_string(value)); }
Writer& Writer::field(std::string_view key, double value) { return field(key, format_double(value)); }
Writer& Writer::field(std::string_view key, float value) { return field(key, format_float(value)); }
Writer& Writer::field(std::string_view key, const std::vector<int>& values) {
  return field(key, format_int_list(values));
}

std::string format_double(double v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("nan");
}

std::string format_float(float v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("nan");
}

std::string format_int_list(const std::vector<int>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t run = 1;
    while (i + run < values.size() && values[i + run] == values[i]) ++run;
    if (!out.empty()) out += ',';
    out += std::to_string(values[i]);
    if (run > 1) out += "*" + std::to_string(run);
    i += run;
  }
  return out;
}

Reader::Reader(std::string_view repro, std::string_view op) : op_(op) {
  // Tolerate surrounding whitespace (copied from a log line) but nothing inside.
  while (!repro.empty() && (repro.front() == ' ' || repro.front() == '\t')) repro.remove_prefix(1);
  while (!repro.empty() && (repro.back() == ' ' || repro.back() == '\t' || repro.back() == '\n' || repro.back() == '\r')) {
    repro.remove_suffix(1);
  }
  const std::string prefix = std::string(op) + ":";
  if (repro.substr(0, prefix.size()) != prefix) {
    throw ReproParseError("expected it to start with " + quote(prefix) + ", got " + quote(repro.substr(0, 40)));
  }
  repro.remove_prefix(prefix.size());
  while (!repro.empty()) {
    const std::size_t semi = repro.find(';');
    const std::string_view item = repro.substr(0, semi);
    repro = semi == std::string_view::npos ? std::string_view{} : repro.substr(semi + 1);
    if (item.empty()) continue;  // a trailing or doubled ';' is harmless
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw ReproParseError("field " + quote(item) + " is not key=value");
    }
    const std::string key(item.substr(0, eq));
    if (!fields_.emplace(key, std::string(item.substr(eq + 1))).second) {
      throw ReproParseError("key " + quote(key) + " appears more than once");
    }
  }
}

std::optional<std::string> Reader::take(std::string_view key) {
  auto it = fields_.find(key);
  if (it == fields_.end()) return std::nullopt;
  std::string value = std::move(it->second);
  fields_.erase(it);
  return value;
}

std::optional<std::int64_t> Reader::take_int(std::string_view key, std::int64_t min, std::int64_t max) {
  auto text = take(key);
  if (!text) return std::nullopt;
  const auto v = parse_number<std::int64_t>(key, *text);
  if (v < min || v > max) {
    throw ReproParseError("key " + quote(key) + ": " + *text + " is outside [" + std::to_string(min) + ", " +
                          std::to_string(max) + "]");
  }
  return v;
}

std::optional<std::uint64_t> Reader::take_u64(std::string_view key) {
  auto text = take(key);
  if (!text) return std::nullopt;
  return parse_number<std::uint64_t>(key, *text);
}

std::optional<double> Reader::take_double(std::string_view key) {
  auto text = take(key);
  if (!text) return std::nullopt;
  const auto v = parse_number<double>(key, *text);
  if (!std::isfinite(v)) throw ReproParseError("key " + quote(key) + ": " + *text + " is not finite");
  return v;
}

std::optional<float> Reader::take_float(std::string_view key) {
  auto text = take(key);
  if (!text) return std::nullopt;
  const auto v = parse_number<float>(key, *text);
  if (!std::isfinite(v)) throw ReproParseError("key " + quote(key) + ": " + *text + " is not finite");
  return v;
}

std::optional<std::vector<int>> Reader::take_int_list(std::string_view key, int min, int max) {
  auto text = take(key);
  if (!text) return std::nullopt;
  std::vector<int> out;
  std::string_view rest = *text;
  if (rest.empty()) throw ReproParseError("key " + quote(key) + " has an empty list");
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    std::int64_t count = 1;
    if (const std::size_t star = item.find('*'); star != std::string_view::npos) {
      count = parse_number<std::int64_t>(key, item.substr(star + 1));
      item = item.substr(0, star);
      if (count < 1) throw ReproParseError("key " + quote(key) + ": run count must be >= 1");
    }
    const auto v = parse_number<std::int64_t>(key, item);
    if (v < min || v > max) {
      throw ReproParseError("key " + quote(key) + ": element " + std::to_string(v) + " is outside [" +
                            std::to_string(min) + ", " + std::to_string(max) + "]");
    }
    if (out.size() + static_cast<std::size_t>(count) > kMaxListLength) {
      throw ReproParseError("key " + quote(key) + ": list longer than " + std::to_string(kMaxListLength));
    }
    out.insert(out.end(), static_cast<std::size_t>(count), static_cast<int>(v));
  }
  return out;
}

void Reader::finish() const {
  if (fields_.empty()) return;
  std::string keys;
  for (const auto& [k, v] : fields_) keys += (keys.empty() ? "" : ", ") + quote(k);
  throw ReproParseError("unknown key(s) for " + op_ + ": " + keys);
}

}  // namespace mlacheck::repro
