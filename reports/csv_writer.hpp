#pragma once
// report.csv, written a row at a time: each case becomes one CSV record (RFC 4180 quoting,
// UTF-8, LF line ends, header first), handed to the OS as soon as it is complete, so a run killed
// at any moment keeps every finished row and at most tears the one being written.
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case_result.hpp"

namespace mlacheck {

class CsvReportWriter {
 public:
  enum class Mode { create, append };
  // create: creates or truncates `path` and writes the header. append: continues an existing
  // report (resume), which must already hold the header. Throws ReportError when it cannot.
  explicit CsvReportWriter(std::string path, Mode mode = Mode::create);
  // A report whose tensor column groups are `groups` (report_columns_for), not kTensorGroups: a
  // test op's report (tests/test_op).
  CsvReportWriter(std::string path, std::vector<std::string_view> groups);
  // Writes `row` with one write call and flushes it; throws ReportError on a write error.
  void append(const CaseResult& row);
  const std::string& path() const { return path_; }

 private:
  void write(const std::string& text);

  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::string path_;
  std::vector<std::string_view> groups_;  // empty: kTensorGroups
  std::unique_ptr<std::FILE, Closer> file_;
};

// The header line of report.csv, line end included.
std::string csv_header();

// The record of `row`, line end included, in report_columns() order.
std::string csv_record(const CaseResult& row);

// The same for a report whose tensor column groups are `groups`.
std::string csv_header(std::span<const std::string_view> groups);
std::string csv_record(const CaseResult& row, std::span<const std::string_view> groups);

// A whole report at once (merge): written beside `path` and renamed over it, so `path` is never
// left half-written, even when it was one of the inputs. Throws ReportError when it cannot.
void write_csv_report(const std::string& path, std::span<const CaseResult> rows);

}  // namespace mlacheck
