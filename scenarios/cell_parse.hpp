#pragma once
// Typed values of one CSV cell of the scenario tables. Each parser throws CellError with the
// reason only; the table loader adds the file, line and column (table_error.hpp).
#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace mlacheck::scenarios {

class CellError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A decimal integer in [min, max].
std::int64_t parse_int_cell(std::string_view text, std::int64_t min, std::int64_t max);

}  // namespace mlacheck::scenarios
