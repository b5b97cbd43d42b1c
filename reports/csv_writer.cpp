#include "reports/csv_writer.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "reports/report_columns.hpp"
#include "reports/report_error.hpp"
#include "reports/report_text.hpp"

namespace mlacheck {

namespace {

// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
void append_field(std::string& line, std::string_view raw) {
  const std::string text = to_report_text(raw);
  if (!line.empty()) line += ',';
  if (text.find_first_of(",\"\r\n") == std::string::npos) {
    line += text;
    return;
  }
  line += '"';
  for (char c : text) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

void append_tensor(std::string& line, const ComparedTensor* t) {
  if (t == nullptr) {
    for (std::size_t i = 0; i < kTensorMetrics.size(); ++i) append_field(line, "");
    return;
  }
  const CompareStats& s = t->stats;
  for (const std::string& field :
       {format_number(s.max_abs_err), format_number(s.max_rel_err), format_number(s.rms_rel_err),
        format_number(s.cosine), std::to_string(s.mismatches), std::to_string(s.nonfinite),
        std::to_string(s.unwritten), std::to_string(s.total), format_number(t->tol.abs), format_number(t->tol.rel),
        format_number(t->tol.rms), t->tol.rule}) {
    append_field(line, field);
  }
}

// kAddedTensorMetrics, after the trailing columns: empty for a tensor the row does not have.
void append_added_tensor_metrics(std::string& line, const ComparedTensor* t) {
  append_field(line, t == nullptr ? "" : std::to_string(t->stats.nan_written));
  append_field(line, t == nullptr ? "" : t->worst_element);
}

// The record's fields over the slots of its tensor groups, in column order.
std::string record_over(const CaseResult& row, std::span<const ComparedTensor* const> tensors) {
  std::string line;
  // -1 (no GPU ran the case) is "does not apply": an empty cell.
  const std::string device_index = row.device_index < 0 ? "" : std::to_string(row.device_index);
  for (std::string_view field :
       {std::string_view(row.id), std::string_view(row.op), std::string_view(row.repro), std::string_view(row.backend),
        std::string_view(row.backend_version), std::string_view(row.device), std::string_view(device_index),
        std::string_view(row.device_pci_bus_id), std::string_view(row.path), std::string_view(row.faults),
        to_string(row.state), std::string_view(row.reason)}) {
    append_field(line, field);
  }
  for (const ComparedTensor* t : tensors) append_tensor(line, t);
  append_field(line, row.canaries);
  append_field(line, std::to_string(row.num_splits));
  append_field(line, format_number(row.reference_ms));
  append_field(line, format_number(row.device_ms));
  append_field(line, format_number(row.wall_ms));
  for (const ComparedTensor* t : tensors) append_added_tensor_metrics(line, t);
  append_field(line, row.shrunk_repro);
  append_field(line, to_string(row.skip_reason));
  append_field(line, to_string(row.error_kind));
  append_field(line, to_string(row.fail_kind));
  append_field(line, to_string(caught_by(row)));
  line += '\n';
  return line;
}

}  // namespace

std::string csv_header() {
  std::string header;
  for (const std::string& name : report_columns()) append_field(header, name);
  return header + '\n';
}

std::string csv_header(std::span<const std::string_view> groups) {
  std::string header;
  for (const std::string& name : report_columns_for(groups)) append_field(header, name);
  return header + '\n';
}

std::string csv_record(const CaseResult& row) { return record_over(row, tensors_by_group(row)); }

std::string csv_record(const CaseResult& row, std::span<const std::string_view> groups) {
  std::vector<const ComparedTensor*> tensors(groups.size());
  tensors_by_group(row, groups, tensors);
  return record_over(row, tensors);
}

CsvReportWriter::CsvReportWriter(std::string path, Mode mode)
    : path_(std::move(path)), file_(std::fopen(path_.c_str(), mode == Mode::create ? "wb" : "ab")) {
  if (!file_) {
    throw ReportError(std::string(mode == Mode::create ? "cannot create " : "cannot append to ") + path_ + ": " +
                      std::strerror(errno));
  }
  if (mode == Mode::append) return;
  write(csv_header());
}

CsvReportWriter::CsvReportWriter(std::string path, std::vector<std::string_view> groups)
    : path_(std::move(path)), groups_(std::move(groups)), file_(std::fopen(path_.c_str(), "wb")) {
  if (!file_) throw ReportError("cannot create " + path_ + ": " + std::strerror(errno));
  write(csv_header(groups_));
}

void CsvReportWriter::append(const CaseResult& row) {
  write(groups_.empty() ? csv_record(row) : csv_record(row, groups_));
}

void CsvReportWriter::write(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), file_.get()) != text.size() || std::fflush(file_.get()) != 0) {
    throw ReportError("cannot write " + path_ + ": " + std::strerror(errno));
  }
}

void write_csv_report(const std::string& path, std::span<const CaseResult> rows) {
  const std::string partial = path + ".partial";
  // A failed write (a full disk, a folder that cannot take the rename) leaves no .partial file
  // behind: the old report, if any, stays as it was and nothing else is new.
  const auto remove_partial = [&] {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
  };
  try {
    {
      CsvReportWriter w(partial);
      for (const CaseResult& r : rows) w.append(r);
    }
    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec) throw ReportError("cannot write " + path + ": " + ec.message());
  } catch (...) {
    remove_partial();
    throw;
  }
}

}  // namespace mlacheck
