#include "api/api_call.hpp"

#include <exception>
#include <new>

#include "reports/report_error.hpp"
#include "scenarios/table_error.hpp"

namespace mlacheck::api {

namespace {

thread_local std::string last_error;

}  // namespace

mlacheck_status fail(const char* function, mlacheck_status status, const std::string& message) noexcept {
  try {
    last_error = std::string(function) + ": " + message;
  } catch (...) {
    // Out of memory while recording the message: keep the status, lose the text.
    last_error.clear();
  }
  return status;
}

mlacheck_status fail_current(const char* function) noexcept {
  try {
    throw;
  } catch (const ApiError& e) {
    return fail(function, e.status(), e.what());
  } catch (const ReportError& e) {
    return fail(function, MLACHECK_ERROR_IO, e.what());
  } catch (const scenarios::TableError& e) {
    return fail(function, MLACHECK_ERROR_IO, e.what());
  } catch (const std::invalid_argument& e) {
    // InvalidProblem and ReproParseError are invalid_arguments: the caller's input.
    return fail(function, MLACHECK_ERROR_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return fail(function, MLACHECK_ERROR_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return fail(function, MLACHECK_ERROR_INTERNAL, e.what());
  } catch (...) {
    return fail(function, MLACHECK_ERROR_INTERNAL, "unknown exception");
  }
}

}  // namespace mlacheck::api

extern "C" const char* mlacheck_last_error(void) { return mlacheck::api::last_error.c_str(); }
