#include "reports/csv_reader.hpp"

// libfccp copies file names with strncpy into fixed buffers, which GCC 12 flags inside the
// header; the truncation it warns about is the library's documented limit, not a bug of ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <limits>
#include <fstream>
#include <type_traits>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "reports/report_columns.hpp"
#include "reports/report_error.hpp"
#include "reports/report_text.hpp"

namespace mlacheck {

namespace {

using Fields = std::array<std::string, kReportColumnCount>;
using Parser = io::CSVReader<kReportColumnCount, io::trim_chars<>, io::double_quote_escape<',', '"'>,
                             io::throw_on_overflow, io::no_comment>;

// libfccp splits records at every line feed, but RFC 4180 lets a quoted field hold line breaks.
// They are swapped for two bytes that never occur in UTF-8 before parsing and swapped back in
// each field; `record_lines` keeps the physical line each record starts on for messages.
constexpr char kMaskedLf = '\xFE';
constexpr char kMaskedCr = '\xFF';

struct MaskedText {
  std::string data;
  std::vector<int> record_lines;  // [0] unused, [k] = first line of libfccp's line k
};

int line_of_offset(const std::string& text, std::size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// Only a regular file of at most kMaxReportBytes is read, sized before it is read: a device or a
// pipe (`diff /dev/zero x`) would otherwise be read until memory runs out.
std::string read_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw ReportError("cannot read " + path + ": not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError("cannot read " + path + ": " + std::strerror(errno));
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw ReportError("cannot read " + path + ": " + ec.message());
  if (size > kMaxReportBytes) {
    throw ReportError(path + ": larger than the " + std::to_string(kMaxReportBytes >> 20) +
                      " MiB a report may hold (not a report.csv?)");
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw ReportError("cannot read " + path + ": " + std::strerror(errno));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// A line longer than any row the writer produces is refused before the CSV parser sees it.
void check_line_lengths(const std::string& path, const std::string& text) {
  std::size_t start = 0;
  int line = 1;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (end - start > kMaxReportLineBytes) {
      throw ReportError(path + ":" + std::to_string(line) + ": a line longer than " +
                        std::to_string(kMaxReportLineBytes >> 10) + " KiB (not a report.csv?)");
    }
    start = end + 1;
    ++line;
  }
}

MaskedText mask_quoted_line_breaks(const std::string& path, std::string text) {
  MaskedText out{std::move(text), {0, 1}};
  bool quoted = false;
  int line = 1;
  for (char& c : out.data) {
    if (c == '"') quoted = !quoted;
    if (c == '\n') {
      ++line;
      if (quoted) {
        c = kMaskedLf;
      } else {
        out.record_lines.push_back(line);
      }
    } else if (c == '\r' && quoted) {
      c = kMaskedCr;
    }
  }
  if (quoted) {
    throw ReportError(path + ":" + std::to_string(out.record_lines.back()) +
                      ": a quoted field is not closed");
  }
  return out;
}

std::string unmask(std::string field) {
  for (char& c : field) {
    if (c == kMaskedLf) c = '\n';
    if (c == kMaskedCr) c = '\r';
  }
  return field;
}

// libfccp's own messages repeat the file and its (masked) line; ours say "path:line: reason".
std::string describe(const io::error::base& e) {
  if (const auto* c = dynamic_cast<const io::error::with_column_name*>(&e)) {
    if (dynamic_cast<const io::error::missing_column_in_header*>(&e)) return std::string("header lacks column '") + c->column_name + "'";
    if (dynamic_cast<const io::error::extra_column_in_header*>(&e)) return std::string("header has unknown column '") + c->column_name + "'";
    if (dynamic_cast<const io::error::duplicated_column_in_header*>(&e)) return std::string("header repeats column '") + c->column_name + "'";
  }
  if (dynamic_cast<const io::error::header_missing*>(&e)) return "empty file: no header";
  if (dynamic_cast<const io::error::too_few_columns*>(&e)) return "fewer fields than the " + std::to_string(kReportColumnCount) + " columns";
  if (dynamic_cast<const io::error::too_many_columns*>(&e)) return "more fields than the " + std::to_string(kReportColumnCount) + " columns";
  if (dynamic_cast<const io::error::escaped_string_not_closed*>(&e)) return "a quoted field is not closed";
  return e.what();
}

class RowParser {
 public:
  RowParser(const std::string& path, int line, Fields& fields) : path_(path), line_(line), fields_(fields) {}

  CaseResult parse() {
    CaseResult row;
    row.id = text(0);
    if (row.id.empty()) fail(0, "is empty: every case needs an id");
    row.op = text(1);
    row.repro = text(2);
    row.backend = text(3);
    row.backend_version = text(4);
    row.device = text(5);
    row.device_index = fields_[6].empty() ? -1 : number<int>(6);
    if (row.device_index < -1) fail(6, "is not a GPU index");
    row.device_pci_bus_id = text(7);
    row.path = text(8);
    row.faults = text(9);
    const auto state = parse_result_state(fields_[10]);
    if (!state) fail(10, "is not a result state (PASSED, FAILED, ERRORED, SKIPPED, MISTRUSTED, KNOWN_BUG)");
    row.state = *state;
    row.reason = text(11);
    std::size_t col = kLeadingColumns.size();
    for (std::string_view group : kTensorGroups) {
      parse_tensor(group, col, row.tensors);
      col += kTensorMetrics.size();
    }
    row.canaries = text(col);
    row.num_splits = number<int>(col + 1);
    if (row.num_splits < 0) fail(col + 1, "is negative: a split count is >= 0");
    row.reference_ms = magnitude(col + 2);
    row.device_ms = magnitude(col + 3);
    row.wall_ms = magnitude(col + 4);
    col += kTrailingColumns.size();
    for (std::string_view group : kTensorGroups) {
      parse_added_tensor_metrics(group, col, row.tensors);
      col += kAddedTensorMetrics.size();
    }
    row.shrunk_repro = text(col);
    parse_disposition(col + 1, row);
    return row;
  }

 private:
  [[noreturn]] void fail(std::size_t col, const std::string& why) const {
    throw ReportError(path_ + ":" + std::to_string(line_) + ": column '" + report_columns()[col] + "': '" +
                      fields_[col] + "' " + why);
  }

  std::string text(std::size_t col) { return std::move(fields_[col]); }

  template <class Kind>
  Kind kind(std::size_t col, std::optional<Kind> (*parse_kind)(std::string_view), const char* names) const {
    const auto value = parse_kind(fields_[col]);
    if (!value) fail(col, std::string("is not one of ") + names);
    return *value;
  }

  // The typed disposition: skip_reason, error_kind, fail_kind, caught_by from column `col` on.
  // An empty kind where the state needs one (a report older than these columns) is unknown.
  void parse_disposition(std::size_t col, CaseResult& row) const {
    row.skip_reason = kind(col, &parse_skip_reason,
                           "unsupported, not_enough_memory, no_device, not_checked_by_policy, unknown or empty");
    row.error_kind = kind(col + 1, &parse_error_kind,
                          "crashed, timed_out, device_lost, backend_exception, harness_error, backend_not_started, "
                          "unknown or empty");
    row.fail_kind = kind(col + 2, &parse_fail_kind, "wrong_output, refused_curated, unknown or empty");
    kind(col + 3, &parse_caught_by, "comparison, guard, refusal, crash (joined by '|') or empty");
    if (row.state == ResultState::skipped && row.skip_reason == SkipReason::none) row.skip_reason = SkipReason::unknown;
    if (row.state == ResultState::errored && row.error_kind == ErrorKind::none) row.error_kind = ErrorKind::unknown;
    if (row.state == ResultState::failed && row.fail_kind == FailKind::none) row.fail_kind = FailKind::unknown;
  }

  // A number as the writer prints it: never NaN (outside the cosine no column holds one; a NaN
  // payload would make every comparison of `diff` false), and for unsigned counts digits only, not a wrapped "-1".
  template <class T>
  T number(std::size_t col) const {
    const std::string& s = fields_[col];
    T value{};
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) fail(col, "is not a number");
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(value)) fail(col, "is NaN: no report column holds one");
    }
    return value;
  }

  // A cosine in [-1, 1], or NaN: the one column the writer can print NaN in (compare() leaves it
  // NaN when both norms overflow a double), and no threshold of diff or the verdict reads it.
  double cosine(std::size_t col) const {
    if (fields_[col] == "nan" || fields_[col] == "-nan") return std::numeric_limits<double>::quiet_NaN();
    const double value = number<double>(col);
    if (value < -1.0 || value > 1.0) fail(col, "is not a cosine in [-1, 1]");
    return value;
  }

  // An error, a bound or a time: a number >= 0 (+inf allowed: an error under a zero bound).
  double magnitude(std::size_t col) const {
    const double value = number<double>(col);
    if (value < 0.0) fail(col, "is negative: errors, bounds and times are >= 0");
    return value;
  }

  void parse_tensor(std::string_view group, std::size_t col, std::vector<ComparedTensor>& out) {
    const auto first = fields_.begin() + static_cast<std::ptrdiff_t>(col);
    const auto last = first + static_cast<std::ptrdiff_t>(kTensorMetrics.size());
    const auto empty = [](const std::string& s) { return s.empty(); };
    if (std::all_of(first, last, empty)) return;
    if (const auto blank = std::find_if(first, last, empty); blank != last) {
      fail(static_cast<std::size_t>(blank - fields_.begin()), "is empty while other " + column_prefix(group) + " columns are set");
    }
    ComparedTensor t;
    t.name = std::string(group);
    t.stats.max_abs_err = magnitude(col);
    t.stats.max_rel_err = magnitude(col + 1);
    t.stats.rms_rel_err = magnitude(col + 2);
    t.stats.cosine = cosine(col + 3);
    t.stats.mismatches = number<std::size_t>(col + 4);
    t.stats.nonfinite = number<std::size_t>(col + 5);
    t.stats.unwritten = number<std::size_t>(col + 6);
    t.stats.total = number<std::size_t>(col + 7);
    t.tol.abs = magnitude(col + 8);
    t.tol.rel = magnitude(col + 9);
    t.tol.rms = magnitude(col + 10);
    t.tol.rule = text(col + 11);
    out.push_back(std::move(t));
  }

  // nan_written and worst_element of `group`'s tensor, when the row has it; empty (a report
  // written before these columns) reads as 0 NaNs and no element named.
  void parse_added_tensor_metrics(std::string_view group, std::size_t col, std::vector<ComparedTensor>& tensors) {
    const auto t = std::find_if(tensors.begin(), tensors.end(), [&](const ComparedTensor& c) { return c.name == group; });
    if (t == tensors.end()) {
      for (std::size_t i = 0; i < kAddedTensorMetrics.size(); ++i) {
        if (!fields_[col + i].empty()) fail(col + i, "is set while the " + column_prefix(group) + " columns are empty");
      }
      return;
    }
    if (!fields_[col].empty()) t->stats.nan_written = number<std::size_t>(col);
    t->worst_element = text(col + 1);
  }

  const std::string& path_;
  int line_;
  Fields& fields_;
};

template <std::size_t... I>
void read_header(const std::string& path, Parser& parser, std::index_sequence<I...>) {
  parser.read_header(io::ignore_missing_column, report_columns()[I]...);
  for (const std::string& column : report_columns()) {
    if (!parser.has_column(column) && !column_added_later(column)) {
      throw ReportError(path + ":1: header lacks column '" + column + "'");
    }
  }
}

template <std::size_t... I>
bool read_row(Parser& parser, Fields& fields, std::index_sequence<I...>) {
  return parser.read_row(fields[I]...);
}

// Offset just past the last line end that ends a record (not one inside a quoted field).
std::size_t end_of_last_record(const std::string& text) {
  std::size_t end = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') quoted = !quoted;
    if (text[i] == '\n' && !quoted) end = i + 1;
  }
  return end;
}

}  // namespace

CsvReport read_csv_report(const std::string& path) { return parse_csv_report(path, read_file(path)); }

CsvReport recover_csv_report(const std::string& path) {
  std::string text = read_file(path);
  const std::size_t keep = end_of_last_record(text);
  if (keep < text.size()) {
    text.resize(keep);
    std::error_code ec;
    std::filesystem::resize_file(path, keep, ec);
    if (ec) throw ReportError("cannot cut the torn last row of " + path + ": " + ec.message());
  }
  return parse_csv_report(path, std::move(text));
}

CsvReport parse_csv_report(const std::string& path, std::string text) {
  if (text.size() > kMaxReportBytes) {
    throw ReportError(path + ": larger than the " + std::to_string(kMaxReportBytes >> 20) + " MiB a report may hold");
  }
  check_line_lengths(path, text);
  if (const auto bad = first_invalid_utf8(text)) {
    throw ReportError(path + ":" + std::to_string(line_of_offset(text, *bad)) + ": not UTF-8 text");
  }
  if (!text.empty() && text.back() != '\n') {
    throw ReportError(path + ":" + std::to_string(line_of_offset(text, text.rfind('\n') + 1)) +
                      ": the last row has no line end (a run killed while writing it, or a cut file)");
  }
  const MaskedText masked = mask_quoted_line_breaks(path, std::move(text));
  CsvReport report{path, {}, {}};
  std::unordered_map<std::string, int> id_lines;
  Parser parser(path, masked.data.data(), masked.data.data() + masked.data.size());
  const auto indices = std::make_index_sequence<kReportColumnCount>();
  try {
    read_header(path, parser, indices);
    Fields fields;
    // A column missing from the file leaves its field as it was: empty, for every row.
    while ((fields = Fields{}, read_row(parser, fields, indices))) {
      const int line = masked.record_lines[parser.get_file_line()];
      for (std::string& f : fields) f = unmask(std::move(f));
      CaseResult row = RowParser(path, line, fields).parse();
      if (const auto [it, fresh] = id_lines.emplace(row.id, line); !fresh) {
        throw ReportError(path + ":" + std::to_string(line) + ": id '" + row.id + "' repeats the row of line " +
                          std::to_string(it->second));
      }
      report.rows.push_back(std::move(row));
      report.lines.push_back(line);
    }
  } catch (io::error::base& e) {
    const auto* at = dynamic_cast<const io::error::with_file_line*>(&e);
    const int line = at && at->file_line > 0 ? masked.record_lines[static_cast<std::size_t>(at->file_line)] : 1;
    throw ReportError(path + ":" + std::to_string(line) + ": " + describe(e));
  }
  return report;
}

}  // namespace mlacheck
