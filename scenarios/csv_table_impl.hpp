#pragma once
// Definition of read_csv_table (csv_table.hpp) over libfccp, whose reader takes its column count
// as a template argument: included only by the .cpp of each table, which instantiates it.
// libfccp copies file names with strncpy into fixed buffers, which GCC 12 flags inside the header;
// the truncation it warns about is the library's documented limit, not a bug of ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <cstring>
#include <tuple>
#include <utility>

#include "scenarios/csv_table.hpp"
#include "scenarios/table_error.hpp"

namespace mlacheck::scenarios {

template <std::size_t N>
CsvTable read_csv_table(const std::string& path, const std::array<std::string_view, N>& columns) {
  using Reader = io::CSVReader<N, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                               io::single_and_empty_line_comment<'#'>>;
  CsvTable table{path, {columns.begin(), columns.end()}, {}};
  const auto fail = [&](int line, std::string column, const std::string& reason) -> TableError {
    return TableError(path, line, std::move(column), reason);
  };
  try {
    Reader reader(path);
    const auto line = [&] { return static_cast<int>(reader.get_file_line()); };
    try {
      std::apply([&](auto... names) { reader.read_header(io::ignore_no_column, std::string(names)...); }, columns);
    } catch (const io::error::header_missing&) {
      throw fail(0, "", "no header line (the file is empty or holds only comments)");
    } catch (const io::error::extra_column_in_header& e) {
      throw fail(line(), e.column_name, "unknown column (scenarios/README.md lists the columns)");
    } catch (const io::error::missing_column_in_header& e) {
      throw fail(line(), e.column_name, "missing from the header (every column must be named, cells may be empty)");
    } catch (const io::error::duplicated_column_in_header& e) {
      throw fail(line(), e.column_name, "named twice in the header");
    }
    std::array<std::string, N> cells;
    while (true) {
      try {
        if (!std::apply([&](auto&... c) { return reader.read_row(c...); }, cells)) break;
      } catch (const io::error::too_few_columns&) {
        throw fail(line(), "", "fewer cells than the header's " + std::to_string(N) + " columns");
      } catch (const io::error::too_many_columns&) {
        throw fail(line(), "", "more cells than the header's " + std::to_string(N) +
                                   " columns (quote a cell that holds commas)");
      } catch (const io::error::escaped_string_not_closed&) {
        throw fail(line(), "", "a quoted cell is not closed");
      }
      table.rows.push_back({line(), {cells.begin(), cells.end()}});
    }
  } catch (const io::error::can_not_open_file& e) {
    throw fail(0, "", std::string("cannot open: ") + std::strerror(e.errno_value));
  } catch (const io::error::base& e) {
    // Anything else libfccp refuses (an over-long line): its own message names the line.
    throw fail(0, "", e.what());
  }
  return table;
}

}  // namespace mlacheck::scenarios
