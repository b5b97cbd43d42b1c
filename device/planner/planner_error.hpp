#pragma once
// Errors of the persistent-decode planner. Each message names the input or buffer at fault and
// the values involved, so a caller sees what to fix without reading the planner.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mlacheck {

// Planner input no valid plan can come from: malformed indptrs, kv_len < q_len, a batch beyond
// the maxima the buffers were sized for, a buffer smaller than metadata_info asks.
class InvalidPlanInput : public std::invalid_argument {
 public:
  explicit InvalidPlanInput(const std::string& what) : std::invalid_argument("persistent planner: " + what) {}
};

// Some but not all of the six scheduling buffers were given (UPSTREAM.md S1).
class IncompleteMetadata : public std::invalid_argument {
 public:
  IncompleteMetadata(const std::string& what, std::vector<std::string> missing)
      : std::invalid_argument(what), missing_(std::move(missing)) {}
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  std::vector<std::string> missing_;
};

}  // namespace mlacheck
