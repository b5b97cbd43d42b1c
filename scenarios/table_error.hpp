#pragma once
// The error of a scenario or known-bug table that cannot be used. Its message points at the
// place to fix: "file:line: column 'name': reason", without the column part when the reason
// concerns a whole line, without the line when it concerns the whole file.
#include <stdexcept>
#include <string>
#include <string_view>

namespace mlacheck::scenarios {

class TableError : public std::runtime_error {
 public:
  TableError(std::string file, int line, std::string column, const std::string& reason);
  const std::string& file() const { return file_; }
  int line() const { return line_; }  // 0: the whole file
  const std::string& column() const { return column_; }  // empty: the whole line

 private:
  std::string file_;
  int line_;
  std::string column_;
};

}  // namespace mlacheck::scenarios
