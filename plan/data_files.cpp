#include "plan/data_files.hpp"

#include <filesystem>
#include <stdexcept>

namespace mlacheck {

std::string scenario_table_path(const std::string& option) {
  if (!option.empty()) {
    if (!std::filesystem::exists(option)) throw std::invalid_argument("scenario table " + option + " does not exist");
    return option;
  }
  for (const std::string& candidate : {std::string("scenarios/upstream.csv"),
                                      std::string(MLACHECK_SOURCE_DIR) + "/scenarios/upstream.csv"}) {
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return "";
}

}  // namespace mlacheck
