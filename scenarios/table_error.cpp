#include "scenarios/table_error.hpp"

namespace mlacheck::scenarios {

namespace {

std::string message(const std::string& file, int line, const std::string& column, const std::string& reason) {
  std::string where = file;
  if (line > 0) where += ":" + std::to_string(line);
  if (!column.empty()) where += ": column '" + column + "'";
  return where + ": " + reason;
}

}  // namespace

TableError::TableError(std::string file, int line, std::string column, const std::string& reason)
    : std::runtime_error(message(file, line, column, reason)),
      file_(std::move(file)),
      line_(line),
      column_(std::move(column)) {}

}  // namespace mlacheck::scenarios
