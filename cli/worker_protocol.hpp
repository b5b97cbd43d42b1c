#pragma once
// What a `mlacheck run` supervisor and its worker processes say to each other.
//   supervisor -> worker (stdin, then closed):  <index>\t<oracle|curated|generated>\t<repro>\n
//     (curated and generated are device cases; generated ones alone may be SKIPPED when refused)
//   worker -> supervisor (the result fd):       row <index> <bytes>\n<report CSV: header + one record>
// Repro strings hold no tabs or line breaks; a row travels as report CSV so that every field a
// report carries survives the trip exactly as it will be written.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "plan/run_plan.hpp"
#include "harness/case_result.hpp"

namespace mlacheck::cli {

std::string encode_case_line(std::size_t index, const RunCase& c);
struct CaseLine {
  std::size_t index = 0;
  RunCase run_case;
};
// Throws std::invalid_argument for a line that is not one encode_case_line wrote.
CaseLine decode_case_line(const std::string& line);

// "row <index> <bytes>[ memory]\n" and the row as CSV (header and record). The report's columns
// leave out that admission skipped the row for lack of memory; " memory" carries it, since a
// resource skip is settled unlike a refusal (plan/case_settle.hpp, the kill matrix).
std::string encode_row_frame(std::size_t index, const CaseResult& row);

struct RowFrame {
  std::size_t index = 0;
  CaseResult row;
};
// Takes every complete frame off the front of `buffer` (bytes read so far); a partial frame
// stays for the next read. Throws std::runtime_error for bytes that are no frame.
std::vector<RowFrame> take_row_frames(std::string& buffer);

}  // namespace mlacheck::cli
