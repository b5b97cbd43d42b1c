#pragma once
// The one error type of the report readers and writers. Its message names the file and, for a
// bad row, the line ("report.csv:12: column 'state': 'PASS' is not a result state"), so a user
// can find the damage without reading code.
#include <stdexcept>
#include <string>

namespace mlacheck {

class ReportError : public std::runtime_error {
 public:
  explicit ReportError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace mlacheck
