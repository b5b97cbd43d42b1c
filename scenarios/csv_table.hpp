#pragma once
// The CSV dialect of the scenario and known-bug tables: a header naming every column of the
// table's schema exactly once, in any order; comma-separated cells, trimmed of spaces and tabs;
// double quotes around a cell holding commas ("512,1024"), "" for a quote inside one; lines
// starting with '#' and blank lines are skipped (provenance comments belong there). Reading is
// libfccp's (csv_table_impl.hpp); this header is what the tables' converters use.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/cell_parse.hpp"

namespace mlacheck::scenarios {

struct CsvRow {
  int line = 0;                    // the row's line in the file, for messages
  std::vector<std::string> cells;  // in schema order
};

struct CsvTable {
  std::string file;
  std::vector<std::string_view> columns;  // the schema
  std::vector<CsvRow> rows;
};

// Throws TableError naming file, line and column for a file that cannot be opened, a missing,
// unknown or repeated header column, a row with too few or too many cells, an unclosed quote.
// Defined in csv_table_impl.hpp; each table instantiates it for its schema.
template <std::size_t N>
CsvTable read_csv_table(const std::string& path, const std::array<std::string_view, N>& columns);

// Typed access to one row's cells, turning a cell that does not parse into a TableError that
// names the file, the row's line and the column.
class CellReader {
 public:
  CellReader(const CsvTable& table, const CsvRow& row) : table_(table), row_(row) {}
  int line() const { return row_.line; }
  std::string_view text(std::string_view column) const;
  bool empty(std::string_view column) const { return text(column).empty(); }
  // The column's text through `parse`; a CellError it throws gains the file, line and column.
  template <class Parse>
  auto parse(std::string_view column, Parse&& parse) const {
    try {
      return parse(text(column));
    } catch (const CellError& e) {
      fail(column, e.what());
    }
  }
  [[noreturn]] void fail(std::string_view column, const std::string& reason) const;

 private:
  const CsvTable& table_;
  const CsvRow& row_;
};

}  // namespace mlacheck::scenarios
