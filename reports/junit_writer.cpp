#include "reports/junit_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ostream>
#include <utility>

#include "reports/report_error.hpp"
#include "reports/report_text.hpp"

namespace mlacheck {

namespace {

// Seconds with millisecond resolution: some JUnit readers accept no exponent and at most three
// decimals.
std::string seconds(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ms > 0.0 ? ms / 1000.0 : 0.0);
  return buf;
}

std::string class_name(const CaseResult& row) {
  if (row.op.empty()) return "mlacheck";
  return row.backend.empty() ? row.op : row.op + "." + row.backend;
}

// A failure's or error's type attribute: its typed kind (core/disposition.hpp: "wrong_output",
// "refused_curated", "crashed", ...), or the state's name where the row has none recorded. (The
// common schema gives <skipped> no type; a skip's reason is in system-out.)
std::string kind_type(const CaseResult& row) {
  const std::string_view kind = row.state == ResultState::failed ? to_string(row.fail_kind) : to_string(row.error_kind);
  return std::string(kind.empty() ? to_string(row.state) : kind);
}

std::string details(const CaseResult& row) {
  std::string s = "repro: " + row.repro + "\nstate: " + std::string(to_string(row.state));
  if (!row.reason.empty()) s += "\nreason: " + row.reason;
  for (const auto& [name, value] : {std::pair{"skip_reason", to_string(row.skip_reason)},
                                    std::pair{"error_kind", to_string(row.error_kind)},
                                    std::pair{"fail_kind", to_string(row.fail_kind)}}) {
    if (!value.empty()) s += "\n" + std::string(name) + ": " + std::string(value);
  }
  if (const std::string caught = to_string(caught_by(row)); !caught.empty()) s += "\ncaught_by: " + caught;
  s += "\nbackend: " + row.backend + "\ndevice: " + row.device + "\npath: " + row.path +
       "\nnum_splits: " + std::to_string(row.num_splits);
  if (!row.faults.empty()) s += "\nfaults: " + row.faults;
  for (const ComparedTensor& t : row.tensors) {
    const CompareStats& m = t.stats;
    s += "\n" + t.name + ": max_abs_err=" + format_number(m.max_abs_err) + " max_rel_err=" + format_number(m.max_rel_err) +
         " rms_rel_err=" + format_number(m.rms_rel_err) + " cosine=" + format_number(m.cosine) +
         " mismatches=" + std::to_string(m.mismatches) + "/" + std::to_string(m.total) +
         " nonfinite=" + std::to_string(m.nonfinite) + " nan_written=" + std::to_string(m.nan_written) +
         " unwritten=" + std::to_string(m.unwritten) +
         (t.worst_element.empty() ? "" : "\n  worst element: " + t.worst_element) +
         "\n  tolerance: abs=" + format_number(t.tol.abs) + " rel=" + format_number(t.tol.rel) +
         " rms=" + format_number(t.tol.rms) + " (" + t.tol.rule + ")";
  }
  s += "\ncanaries: " + row.canaries + "\ntime: reference " + format_number(row.reference_ms) + " ms, device " +
       format_number(row.device_ms) + " ms, wall " + format_number(row.wall_ms) + " ms\n";
  return s;
}

void write_testcase(std::ostream& out, const CaseResult& row) {
  out << "    <testcase classname=\"" << markup_escape(class_name(row)) << "\" name=\"" << markup_escape(row.id)
      << "\" time=\"" << seconds(row.wall_ms) << "\">\n";
  const std::string state(to_string(row.state));
  switch (junit_kind(row.state)) {
    case JUnitKind::pass: break;
    case JUnitKind::failure:
    case JUnitKind::error: {
      const char* tag = junit_kind(row.state) == JUnitKind::failure ? "failure" : "error";
      out << "      <" << tag << " message=\"" << markup_escape(row.reason) << "\" type=\"" << markup_escape(kind_type(row)) << "\">"
          << markup_escape(row.reason + "\nrepro: " + row.repro) << "</" << tag << ">\n";
      break;
    }
    case JUnitKind::skipped:
      // SKIPPED, MISTRUSTED and KNOWN_BUG all read "skipped" in CI; the state in the message
      // keeps them apart, and a SKIPPED case says it was not checked (never a pass).
      out << "      <skipped message=\""
          << markup_escape(state + (row.state == ResultState::skipped ? " (not checked): " : ": ") + row.reason)
          << "\"/>\n";
      break;
  }
  out << "      <system-out>" << markup_escape(details(row)) << "</system-out>\n    </testcase>\n";
}

}  // namespace

void write_junit(std::ostream& out, std::span<const CaseResult> rows) {
  int failures = 0, errors = 0, skipped = 0;
  double total_ms = 0.0;
  for (const CaseResult& r : rows) {
    const JUnitKind kind = junit_kind(r.state);
    failures += kind == JUnitKind::failure;
    errors += kind == JUnitKind::error;
    skipped += kind == JUnitKind::skipped;
    total_ms += r.wall_ms > 0.0 ? r.wall_ms : 0.0;
  }
  const std::string counts = "tests=\"" + std::to_string(rows.size()) + "\" failures=\"" + std::to_string(failures) +
                             "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) +
                             "\" time=\"" + seconds(total_ms) + "\"";
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"mlacheck\" " << counts << ">\n"
      << "  <testsuite name=\"mlacheck\" " << counts << ">\n";
  for (const CaseResult& r : rows) write_testcase(out, r);
  out << "  </testsuite>\n</testsuites>\n";
}

void write_junit_file(const std::string& path, std::span<const CaseResult> rows) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw ReportError("cannot create " + path + ": " + std::strerror(errno));
  write_junit(out, rows);
  out.flush();
  if (!out) throw ReportError("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace mlacheck
