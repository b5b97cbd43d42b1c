#pragma once
// How a row crosses from an isolated case's process to the parent (run/isolated_cases.hpp):
//   row <index> <bytes>\n<report CSV: header + one record>
// A row travels as report CSV so that every field a report carries survives the trip exactly as
// it will be written, its typed disposition included (skip_reason, error_kind, fail_kind).
#include <cstddef>
#include <string>
#include <vector>

#include "harness/case_result.hpp"

namespace mlacheck {

// "row <index> <bytes>\n" and the row as CSV (header and record).
std::string encode_row_frame(std::size_t index, const CaseResult& row);

struct RowFrame {
  std::size_t index = 0;
  CaseResult row;
};
// Takes every complete frame off the front of `buffer` (bytes read so far); a partial frame
// stays for the next read. Throws std::runtime_error for bytes that are no frame.
std::vector<RowFrame> take_row_frames(std::string& buffer);

}  // namespace mlacheck
