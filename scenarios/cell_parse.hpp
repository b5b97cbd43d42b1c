#pragma once
// Typed values of one CSV cell of the scenario tables. Each parser throws CellError with the
// reason only; the table loader adds the file, line and column (scenario_file_error.hpp).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"

namespace mlacheck::scenarios {

class CellError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A decimal integer in [min, max].
std::int64_t parse_int_cell(std::string_view text, std::int64_t min, std::int64_t max);
std::uint64_t parse_u64_cell(std::string_view text);
// Comma-separated integers in [min, max], runs written value*count as in repro strings:
// "4096*8,17" is eight 4096s then 17.
std::vector<int> parse_int_list_cell(std::string_view text, int min, int max);
// A finite decimal number that a float holds, e.g. "0.0625" or "2".
float parse_float_cell(std::string_view text);
// "0"/"1" or "false"/"true".
bool parse_bool_cell(std::string_view text);
// A dtype by its canonical name (core/dtype.hpp).
DType parse_dtype_cell(std::string_view text);

}  // namespace mlacheck::scenarios
