// Verdicts as report rows, and report folders: report.csv a row at a time, then junit.xml and
// report.html from it (reports/report_folder.hpp, the writer `mlacheck run --out` uses); merged
// folders from the rows of several reports (reports/report_merge.hpp, as `mlacheck merge`).
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"
#include "reports/csv_reader.hpp"
#include "reports/report_merge.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

namespace {

namespace fs = std::filesystem;

// Whether `input` names the file `merged` (which may not exist yet).
bool same_file(const fs::path& input, const fs::path& merged) {
  std::error_code ec;
  if (fs::exists(input, ec) && fs::exists(merged, ec)) return fs::equivalent(input, merged, ec);
  return fs::weakly_canonical(fs::absolute(input, ec), ec) == fs::weakly_canonical(fs::absolute(merged, ec), ec);
}

}  // namespace

extern "C" {

void mlacheck_verdict_free(mlacheck_verdict* v) { delete v; }

mlacheck_status mlacheck_verdict_state(const mlacheck_verdict* v, const char** state) {
  return api_call("mlacheck_verdict_state", [&] { *require(state, "state") = require(v, "verdict")->state.c_str(); });
}

mlacheck_status mlacheck_verdict_is_failure(const mlacheck_verdict* v, int32_t* failure) {
  return api_call("mlacheck_verdict_is_failure", [&] {
    *require(failure, "failure") = mlacheck::is_failure(require(v, "verdict")->row.state) ? 1 : 0;
  });
}

mlacheck_status mlacheck_verdict_disposition(const mlacheck_verdict* v, const char** skip_reason,
                                            const char** error_kind, const char** fail_kind, const char** caught_by) {
  return api_call("mlacheck_verdict_disposition", [&] {
    const mlacheck::CaseResult& row = require(v, "verdict")->row;
    // The names are string literals (core/disposition.cpp): NUL-terminated and never freed.
    if (skip_reason != nullptr) *skip_reason = mlacheck::to_string(row.skip_reason).data();
    if (error_kind != nullptr) *error_kind = mlacheck::to_string(row.error_kind).data();
    if (fail_kind != nullptr) *fail_kind = mlacheck::to_string(row.fail_kind).data();
    if (caught_by != nullptr) {
      v->caught_by = mlacheck::to_string(mlacheck::caught_by(row));
      *caught_by = v->caught_by.c_str();
    }
  });
}

mlacheck_status mlacheck_verdict_csv(const mlacheck_verdict* v, const char** header, const char** record) {
  return api_call("mlacheck_verdict_csv", [&] {
    require(header, "header");
    require(record, "record");
    require(v, "verdict");
    *header = v->header.c_str();
    *record = v->record.c_str();
  });
}

mlacheck_status mlacheck_report_open(const char* dir, mlacheck_report** out) {
  return api_call("mlacheck_report_open", [&] {
    require(out, "out");
    *out = nullptr;
    *out = std::make_unique<mlacheck_report>(std::string(require(dir, "dir"))).release();
  });
}

mlacheck_status mlacheck_report_append(mlacheck_report* r, const mlacheck_verdict* v) {
  return api_call("mlacheck_report_append", [&] {
    require(r, "report");
    require(v, "verdict");
    if (r->ids.contains(v->row.id)) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "the report already holds a row with id '" + v->row.id + "' (ids must be unique in a report)");
    }
    r->folder.append(v->row);
    r->ids.insert(v->row.id);
  });
}

mlacheck_status mlacheck_report_set_space(mlacheck_report* r, const char* space) {
  return api_call("mlacheck_report_set_space",
                  [&] { require(r, "report")->space = mlacheck::api::parse_space_argument(space); });
}

mlacheck_status mlacheck_report_finish(mlacheck_report* r, const char* title) {
  return api_call("mlacheck_report_finish", [&] {
    require(r, "report");
    mlacheck::HtmlReportOptions options;
    options.space = r->space;
    if (title != nullptr && *title != '\0') options.title = title;
    r->folder.finish(options);
  });
}

void mlacheck_report_free(mlacheck_report* r) { delete r; }

mlacheck_status mlacheck_report_merge(const char* const* inputs, int64_t count, const char* dir, const char* title,
                                      int64_t* rows) {
  return api_call("mlacheck_report_merge", [&] {
    const std::string out_dir = require(dir, "dir");
    if (count <= 0) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "count " + std::to_string(count) + ": nothing to merge");
    }
    require(inputs, "inputs");
    const fs::path merged_csv = fs::path(out_dir) / mlacheck::ReportFolder::kCsv;
    std::vector<mlacheck::CsvReport> reports;
    for (int64_t i = 0; i < count; ++i) {
      const std::string name = "inputs[" + std::to_string(i) + "]";
      const std::string path = require(inputs[i], name.c_str());
      // The merged report.csv is rewritten row by row: it can never be its own input.
      if (same_file(path, merged_csv)) {
        throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                       name + " " + path + " is the merged report itself (" + merged_csv.string() + ")");
      }
      reports.push_back(mlacheck::read_csv_report(path));
    }
    // Every input read and the ids checked before the folder is touched.
    const std::vector<mlacheck::CaseResult> merged = mlacheck::merge_reports(reports);
    mlacheck::ReportFolder folder(out_dir, mlacheck::ReportFolder::Mode::replace);
    for (const mlacheck::CaseResult& row : merged) folder.append(row);
    mlacheck::HtmlReportOptions options;
    if (title != nullptr && *title != '\0') options.title = title;
    folder.finish(options);
    if (rows != nullptr) *rows = static_cast<int64_t>(merged.size());
  });
}

}  // extern "C"
