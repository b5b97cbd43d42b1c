#include "cli/shard.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace mlacheck::cli {

namespace {

std::size_t parse_count(const std::string& text, std::string_view part) {
  std::size_t v = 0;
  const char* end = part.data() + part.size();
  auto [ptr, ec] = std::from_chars(part.data(), end, v);
  if (part.empty() || ec != std::errc() || ptr != end) {
    throw std::invalid_argument("--shard '" + text + "': expected i/n with whole numbers, as 0/4");
  }
  return v;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) throw std::invalid_argument("--shard '" + text + "': expected i/n, as 0/4");
  const std::string_view s(text);
  Shard shard{parse_count(text, s.substr(0, slash)), parse_count(text, s.substr(slash + 1))};
  if (shard.count == 0 || shard.index >= shard.count) {
    throw std::invalid_argument("--shard '" + text + "': needs 0 <= i < n");
  }
  return shard;
}

Shard resolve_shard(const std::optional<std::string>& option) {
  if (option) return parse_shard(*option);
  const char* index = std::getenv("GTEST_SHARD_INDEX");
  const char* total = std::getenv("GTEST_TOTAL_SHARDS");
  if (index != nullptr && total != nullptr) return parse_shard(std::string(index) + "/" + total);
  return {};
}

}  // namespace mlacheck::cli
