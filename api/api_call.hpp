#pragma once
// The boundary of the harness C API: every exported function runs its body through api_call,
// which turns any C++ exception into a status and a thread-local message, so none crosses into C
// (or into a Python interpreter through ctypes).
#include <stdexcept>
#include <string>

#include "mlacheck/harness_api.h"

namespace mlacheck::api {

// An error the API raises itself, with the status it maps to.
class ApiError : public std::runtime_error {
 public:
  ApiError(mlacheck_status status, const std::string& what) : std::runtime_error(what), status_(status) {}
  mlacheck_status status() const { return status_; }

 private:
  mlacheck_status status_;
};

// Throws MLACHECK_ERROR_INVALID_ARGUMENT naming `what` when `pointer` is NULL.
template <class T>
T* require(T* pointer, const char* what) {
  if (pointer == nullptr) throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, std::string(what) + " is NULL");
  return pointer;
}

// Records `message` as this thread's last error and returns `status`.
mlacheck_status fail(const char* function, mlacheck_status status, const std::string& message) noexcept;
// The status of the exception being handled (call inside a catch block).
mlacheck_status fail_current(const char* function) noexcept;

template <class Body>
mlacheck_status api_call(const char* function, Body&& body) noexcept {
  try {
    body();
    return MLACHECK_OK;
  } catch (...) {
    return fail_current(function);
  }
}

}  // namespace mlacheck::api
