#include "plan/data_files.hpp"

#include <filesystem>
#include <stdexcept>

namespace mlacheck {

namespace {

std::string data_file(const std::string& option, const std::string& relative, const char* what) {
  if (!option.empty()) {
    if (!std::filesystem::exists(option)) throw std::invalid_argument(std::string(what) + " " + option + " does not exist");
    return option;
  }
  for (const std::string& candidate : {relative, std::string(MLACHECK_SOURCE_DIR) + "/" + relative}) {
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return "";
}

}  // namespace

std::string scenario_table_path(const std::string& option) {
  return data_file(option, "scenarios/upstream.csv", "scenario table");
}

std::string known_bug_table_path(const std::string& option) {
  return data_file(option, "scenarios/known_bugs.csv", "known-bug table");
}

}  // namespace mlacheck
