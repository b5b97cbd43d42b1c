#include "scenarios/csv_table.hpp"

#include <algorithm>
#include <stdexcept>

#include "scenarios/table_error.hpp"

namespace mlacheck::scenarios {

std::string_view CellReader::text(std::string_view column) const {
  const auto it = std::find(table_.columns.begin(), table_.columns.end(), column);
  // Converters ask only for their own schema's columns; anything else is a bug in the converter.
  if (it == table_.columns.end()) throw std::logic_error("column '" + std::string(column) + "' is not in the schema");
  return row_.cells[static_cast<std::size_t>(it - table_.columns.begin())];
}

void CellReader::fail(std::string_view column, const std::string& reason) const {
  throw TableError(table_.file, row_.line, std::string(column), reason);
}

}  // namespace mlacheck::scenarios
