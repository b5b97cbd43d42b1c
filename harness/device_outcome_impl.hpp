#pragma once
// Template part of device_outcome.hpp.
#include <exception>
#include <string>
#include <string_view>

#include "device/platform/gpu_error.hpp"
#include "harness/lost_case.hpp"

namespace mlacheck {

template <class Problem>
bool admit_case(CaseResult& row, const Backend* backend, std::string_view unavailable_reason, const Problem& p) {
  if (backend == nullptr) {
    row.state = ResultState::skipped;
    row.reason = std::string(unavailable_reason);
    return false;
  }
  row.backend = backend->name();
  row.backend_version = backend->version();
  row.device = backend->device_name();
  row.device_index = backend->device_index();
  row.device_pci_bus_id = backend->device_pci_bus_id();
  if (auto why = backend->supports(p)) {
    row.state = ResultState::skipped;
    row.reason = *why;
    return false;
  }
  if (auto why = backend->lacks_memory(p)) {
    row.state = ResultState::skipped;
    row.reason = "not enough memory on this machine: " + *why;
    row.skipped_for_memory = true;
    return false;
  }
  return true;
}

template <class Body>
void guard_device_run(CaseResult& row, Body&& body) {
  try {
    body();
  } catch (const GpuError& e) {
    row.state = ResultState::errored;
    row.reason = e.device_lost() ? device_lost_reason(e.what()) : e.what();
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
