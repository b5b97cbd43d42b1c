// Verdicts as report rows, and report folders: report.csv a row at a time, then junit.xml and
// report.html from it (reports/report_folder.hpp, the writer `mlacheck run --out` uses).
#include <memory>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

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

mlacheck_status mlacheck_report_finish(mlacheck_report* r, const char* title) {
  return api_call("mlacheck_report_finish", [&] {
    require(r, "report");
    mlacheck::HtmlReportOptions options;
    if (title != nullptr && *title != '\0') options.title = title;
    r->folder.finish(options);
  });
}

void mlacheck_report_free(mlacheck_report* r) { delete r; }

}  // extern "C"
