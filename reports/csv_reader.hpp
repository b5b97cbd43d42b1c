#pragma once
// Reads report.csv back (diff, merge, the final JUnit and HTML reports, resuming a run).
#include <cstddef>
#include <string>
#include <vector>

#include "harness/case_result.hpp"

namespace mlacheck {

// Bounds on what is read, checked before the text is parsed. A report's rows are a few KiB each,
// so 1 GiB holds several hundred thousand rows, and no row the writer produces nears 1 MiB.
inline constexpr std::size_t kMaxReportBytes = std::size_t{1} << 30;
inline constexpr std::size_t kMaxReportLineBytes = std::size_t{1} << 20;

struct CsvReport {
  std::string path;
  std::vector<CaseResult> rows;
  std::vector<int> lines;  // the line each row starts on, for messages that point at a row
};

// Reads a report written by CsvReportWriter; columns may come in any order. Throws ReportError
// naming "path:line" and the reason for a file that cannot be read, is not UTF-8, lacks or
// changes a header column, has a row with the wrong number of fields, an unclosed quote or a
// value that does not parse (NaN outside the cosine, a negative error, bound or time, a cosine
// outside [-1, 1]), repeats an id, is no regular file, is over kMaxReportBytes or has a line over
// kMaxReportLineBytes, or ends in a row without its line end (the run was
// killed while writing it). Fields the CSV does not carry (norms, worst index) read as zero.
CsvReport read_csv_report(const std::string& path);

// The same for report text already in memory (a row a worker process sent); `source` names the
// text in messages where a path would stand.
CsvReport parse_csv_report(const std::string& source, std::string text);

// For `mlacheck run --resume`: the complete rows of a report whose last row may be torn (the run
// was killed while writing it). The torn tail is cut from the file, so appending continues from
// the last complete row. Any other damage throws ReportError as read_csv_report does.
CsvReport recover_csv_report(const std::string& path);

}  // namespace mlacheck
