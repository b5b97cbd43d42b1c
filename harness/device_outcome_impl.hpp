#pragma once
// Template part of device_outcome.hpp.
#include <exception>

namespace mlacheck {

template <class Body>
void guard_device_run(CaseResult& row, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    row.state = ResultState::errored;
    row.reason = e.what();
  } catch (...) {
    row.state = ResultState::errored;
    row.reason = "unknown exception from the backend";
  }
}

}  // namespace mlacheck
