#include "run/row_frames.hpp"

#include <charconv>
#include <stdexcept>

#include "reports/csv_reader.hpp"
#include "reports/csv_writer.hpp"

namespace mlacheck {

namespace {

std::size_t parse_index(std::string_view text, const char* what) {
  std::size_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    throw std::invalid_argument(std::string(what) + ": '" + std::string(text) + "' is not a number");
  }
  return v;
}

}  // namespace

std::string encode_row_frame(std::size_t index, const CaseResult& row) {
  const std::string csv = csv_header() + csv_record(row);
  return "row " + std::to_string(index) + " " + std::to_string(csv.size()) + "\n" + csv;
}

std::vector<RowFrame> take_row_frames(std::string& buffer) {
  std::vector<RowFrame> frames;
  std::size_t pos = 0;
  while (true) {
    const std::size_t eol = buffer.find('\n', pos);
    if (eol == std::string::npos) break;
    const std::string_view head(buffer.data() + pos, eol - pos);
    const std::size_t space = head.find(' ', 4);
    if (head.substr(0, 4) != "row " || space == std::string_view::npos) {
      throw std::runtime_error("a case's process sent something that is not a row frame: '" + std::string(head.substr(0, 60)) + "'");
    }
    const std::size_t index = parse_index(head.substr(4, space - 4), "row frame index");
    const std::size_t bytes = parse_index(head.substr(space + 1), "row frame size");
    if (buffer.size() - (eol + 1) < bytes) break;  // the rest has not arrived yet
    CsvReport report = parse_csv_report("row frame " + std::to_string(index), buffer.substr(eol + 1, bytes));
    if (report.rows.size() != 1) throw std::runtime_error("a row frame does not hold exactly one row");
    frames.push_back({index, std::move(report.rows.front())});
    pos = eol + 1 + bytes;
  }
  buffer.erase(0, pos);
  return frames;
}

}  // namespace mlacheck
