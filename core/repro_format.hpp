#pragma once
// The grammar shared by every descriptor's repro string:  op:key=value;key=value;...
// Values never contain ';' or '='. Integer lists are comma-separated, with runs of one value
// written value*count ("4096*8,17"). Doubles print in their shortest round-trip form.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlacheck::repro {

class Writer {
 public:
  explicit Writer(std::string_view op);
  Writer& field(std::string_view key, std::string_view value);
  Writer& field(std::string_view key, std::int64_t value);
  Writer& field(std::string_view key, double value);
  Writer& field(std::string_view key, float value);
  Writer& field(std::string_view key, const std::vector<int>& values);
  const std::string& str() const { return out_; }

 private:
  std::string out_;
  bool first_ = true;
};

// Splits a repro string of operation `op`; throws ReproParseError on a wrong prefix, an empty or
// repeated key, or a field without '='. Each take_* consumes a key; finish() rejects what was
// never taken (unknown keys).
class Reader {
 public:
  Reader(std::string_view repro, std::string_view op);
  std::optional<std::string> take(std::string_view key);
  std::optional<std::int64_t> take_int(std::string_view key, std::int64_t min, std::int64_t max);
  std::optional<std::uint64_t> take_u64(std::string_view key);
  std::optional<double> take_double(std::string_view key);
  std::optional<float> take_float(std::string_view key);
  std::optional<std::vector<int>> take_int_list(std::string_view key, int min, int max);
  void finish() const;
  // The fields not taken yet, key -> value as written: what a partial repro pattern fixes
  // (scenarios/repro_pattern.hpp).
  const std::map<std::string, std::string, std::less<>>& remaining() const { return fields_; }

 private:
  std::string op_;
  std::map<std::string, std::string, std::less<>> fields_;
};

std::string format_double(double v);
std::string format_float(float v);
std::string format_int_list(const std::vector<int>& values);

}  // namespace mlacheck::repro
