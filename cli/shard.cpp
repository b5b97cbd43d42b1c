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

// A whole number from variable `name`, or nullopt when it is unset.
std::optional<std::size_t> number_in(const Environment& env, const char* name) {
  const char* value = env(name);
  if (value == nullptr) return std::nullopt;
  const std::string_view text(value);
  std::size_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    throw std::invalid_argument(std::string("--shard auto: ") + name + "='" + std::string(text) + "' is not a whole number");
  }
  return v;
}

Shard checked(std::size_t index, std::size_t count, const std::string& from) {
  if (count == 0 || index >= count) {
    throw std::invalid_argument("--shard auto: " + from + " gives shard " + std::to_string(index) + " of " +
                                std::to_string(count) + "; needs 0 <= index < count");
  }
  return {index, count};
}

Shard from_slurm(const Environment& env, std::size_t id) {
  const auto count = number_in(env, "SLURM_ARRAY_TASK_COUNT");
  if (!count) throw std::invalid_argument("--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not");
  const std::size_t min = number_in(env, "SLURM_ARRAY_TASK_MIN").value_or(0);
  const std::size_t step = number_in(env, "SLURM_ARRAY_TASK_STEP").value_or(1);
  if (id < min || step == 0 || (id - min) % step != 0) {
    throw std::invalid_argument("--shard auto: SLURM_ARRAY_TASK_ID=" + std::to_string(id) +
                                " is not on the array's range (min " + std::to_string(min) + ", step " +
                                std::to_string(step) + "); use a contiguous --array range such as 0-7");
  }
  return checked((id - min) / step, *count, "Slurm (SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT)");
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) throw std::invalid_argument("--shard '" + text + "': expected i/n, as 0/4, or auto");
  const std::string_view s(text);
  Shard shard{parse_count(text, s.substr(0, slash)), parse_count(text, s.substr(slash + 1))};
  if (shard.count == 0 || shard.index >= shard.count) {
    throw std::invalid_argument("--shard '" + text + "': needs 0 <= i < n");
  }
  return shard;
}

Shard shard_from_scheduler(const Environment& env) {
  if (const auto id = number_in(env, "SLURM_ARRAY_TASK_ID")) return from_slurm(env, *id);
  if (const auto index = number_in(env, "JOB_COMPLETION_INDEX")) {
    const auto count = number_in(env, "MLACHECK_SHARD_COUNT");
    if (!count) {
      throw std::invalid_argument(
          "--shard auto: JOB_COMPLETION_INDEX is set but MLACHECK_SHARD_COUNT is not (set it to the Job's completions)");
    }
    return checked(*index, *count, "Kubernetes (JOB_COMPLETION_INDEX, MLACHECK_SHARD_COUNT)");
  }
  const auto index = number_in(env, "GTEST_SHARD_INDEX");
  const auto total = number_in(env, "GTEST_TOTAL_SHARDS");
  if (index && total) return checked(*index, *total, "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS");
  throw std::invalid_argument(
      "--shard auto: no scheduler's variables are set (SLURM_ARRAY_TASK_ID/_COUNT, JOB_COMPLETION_INDEX with "
      "MLACHECK_SHARD_COUNT, or GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS)");
}

Shard resolve_shard(const std::optional<std::string>& option) {
  if (option && *option == "auto") return shard_from_scheduler([](const char* name) { return std::getenv(name); });
  if (option) return parse_shard(*option);
  const char* index = std::getenv("GTEST_SHARD_INDEX");
  const char* total = std::getenv("GTEST_TOTAL_SHARDS");
  if (index != nullptr && total != nullptr) return parse_shard(std::string(index) + "/" + total);
  return {};
}

}  // namespace mlacheck::cli
