#pragma once
// report.csv, written a row at a time: each case becomes one CSV record (RFC 4180 quoting,
// UTF-8, LF line ends, header first), handed to the OS as soon as it is complete, so a run killed
// at any moment keeps every finished row and at most tears the one being written.
#include <cstdio>
#include <memory>
#include <span>
#include <string>

#include "harness/case_result.hpp"

namespace mlacheck {

class CsvReportWriter {
 public:
  enum class Mode { create, append };
  // create: creates or truncates `path` and writes the header. append: continues an existing
  // report (resume), which must already hold the header. Throws ReportError when it cannot.
  explicit CsvReportWriter(std::string path, Mode mode = Mode::create);
  // Writes `row` with one write call and flushes it; throws ReportError on a write error.
  void append(const CaseResult& row);
  const std::string& path() const { return path_; }

 private:
  void write(const std::string& text);

  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::string path_;
  std::unique_ptr<std::FILE, Closer> file_;
};

// The header line of report.csv, line end included.
std::string csv_header();

// The record of `row`, line end included, in report_columns() order.
std::string csv_record(const CaseResult& row);

// A whole report at once (merge): written beside `path` and renamed over it, so `path` is never
// left half-written, even when it was one of the inputs. Throws ReportError when it cannot.
void write_csv_report(const std::string& path, std::span<const CaseResult> rows);

}  // namespace mlacheck
