#pragma once
// Template part of device_outcome.hpp.
#include <exception>

#include "device/platform/gpu_error.hpp"

namespace mlacheck {

template <class Body>
void guard_device_run(CaseResult& row, Body&& body) {
  try {
    body();
  } catch (const GpuError& e) {
    row.state = ResultState::errored;
    row.reason = e.what();
    row.device_lost = e.device_lost();
  } catch (const std::exception& e) {
    row.state = ResultState::errored;
    row.reason = e.what();
  } catch (...) {
    row.state = ResultState::errored;
    row.reason = "unknown exception from the backend";
  }
}

}  // namespace mlacheck
