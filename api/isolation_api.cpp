// What a caller that runs cases in processes of its own needs (the Python package's worker
// processes, python/mlacheck/running/_worker_pool.py): a case's watchdog limit as `mlacheck run`
// sets it, the row of a case whose process or device was lost in the CLI's words
// (harness/lost_case.hpp), and a row another process sent as report CSV made a verdict again.
#include <memory>
#include <string>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"
#include "harness/lost_case.hpp"
#include "plan/run_plan.hpp"
#include "reports/csv_reader.hpp"
#include "reports/csv_writer.hpp"
#include "reports/report_error.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

namespace {

std::string text(const char* s) { return s == nullptr ? std::string() : std::string(s); }

}  // namespace

extern "C" {

mlacheck_status mlacheck_case_timeout_s(const mlacheck_case* c, double base_s, double* limit_s) {
  return api_call("mlacheck_case_timeout_s", [&] {
    require(limit_s, "limit_s");
    if (!(base_s >= 0.0)) throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "base_s must be >= 0");
    *limit_s = mlacheck::case_timeout_s(require(c, "case")->run_case.repro, base_s);
  });
}

mlacheck_status mlacheck_outcome_set_lost(mlacheck_outcome* o, int32_t how, const char* process, const char* detail,
                                          double limit_s) {
  return api_call("mlacheck_outcome_set_lost", [&] {
    require(o, "outcome");
    switch (how) {
      case MLACHECK_LOST_PROCESS_DIED:
        o->errored = mlacheck::process_died_reason(text(process), text(detail));
        o->error_kind = mlacheck::ErrorKind::crashed;
        break;
      case MLACHECK_LOST_TIMED_OUT:
        o->errored = mlacheck::watchdog_reason(limit_s, text(process));
        o->error_kind = mlacheck::ErrorKind::timed_out;
        break;
      case MLACHECK_LOST_DEVICE_LOST:
        o->errored = mlacheck::device_lost_reason(text(detail));
        o->error_kind = mlacheck::ErrorKind::device_lost;
        break;
      default:
        throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "how " + std::to_string(how) + " is no mlacheck_case_loss");
    }
    if (how != MLACHECK_LOST_TIMED_OUT && text(detail).empty()) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "a lost case needs a detail (how its process or device ended)");
    }
  });
}

mlacheck_status mlacheck_verdict_from_csv(const char* header, const char* record, mlacheck_verdict** out) {
  return api_call("mlacheck_verdict_from_csv", [&] {
    require(out, "out");
    *out = nullptr;
    const std::string head = text(require(header, "header"));
    const std::string row = text(require(record, "record"));
    mlacheck::CsvReport parsed;
    try {
      parsed = mlacheck::parse_csv_report("a worker's row", head + row);
    } catch (const mlacheck::ReportError& e) {  // the caller's input, not a file
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, e.what());
    }
    if (parsed.rows.size() != 1) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "a worker's row holds " + std::to_string(parsed.rows.size()) + " rows, not one");
    }
    auto v = std::make_unique<mlacheck_verdict>();
    v->row = std::move(parsed.rows.front());
    v->state = std::string(mlacheck::to_string(v->row.state));
    v->header = mlacheck::csv_header();
    v->record = mlacheck::csv_record(v->row);
    *out = v.release();
  });
}

}  // extern "C"
