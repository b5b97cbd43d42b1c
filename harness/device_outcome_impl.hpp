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
    set_skipped(row, SkipReason::no_device, std::string(unavailable_reason));
    return false;
  }
  row.backend = backend->name();
  row.backend_version = backend->version();
  row.device = backend->device_name();
  row.device_index = backend->device_index();
  row.device_pci_bus_id = backend->device_pci_bus_id();
  if (auto why = backend->supports(p)) {
    set_skipped(row, SkipReason::unsupported, *why);
    return false;
  }
  if (auto why = backend->lacks_memory(p)) {
    set_skipped(row, SkipReason::not_enough_memory, "not enough memory on this machine: " + *why);
    return false;
  }
  return true;
}

template <class Body>
void guard_device_run(CaseResult& row, Body&& body) {
  try {
    body();
  } catch (const GpuError& e) {
    if (e.device_lost()) {
      set_errored(row, ErrorKind::device_lost, device_lost_reason(e.what()));
    } else {
      set_errored(row, ErrorKind::backend_exception, e.what());
    }
  } catch (const std::exception& e) {
    set_errored(row, ErrorKind::backend_exception, e.what());
  } catch (...) {
    set_errored(row, ErrorKind::backend_exception, "unknown exception from the backend");
  }
}

}  // namespace mlacheck
