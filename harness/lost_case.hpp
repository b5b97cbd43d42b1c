#pragma once
// The reasons of rows whose case took its process or device down, worded in one place: the
// case isolation (run/isolated_cases.hpp) writes them, and the kill matrix reads them back to say a
// fault was caught by a crash (rows travel between processes as report CSV, where the reason is
// the only field that can say so).
#include <string>
#include <string_view>

#include "harness/case_result.hpp"

namespace mlacheck {

// "<process> died while running this case: <how>", e.g. how = "signal 6 (Aborted)".
std::string process_died_reason(std::string_view process, std::string_view how);
// "timed out after <limit> s (watchdog); <process> was killed".
std::string watchdog_reason(double limit_s, std::string_view process);
// "device lost: <error>": a sticky GPU error (illegal address, kernel trap); the context is gone.
std::string device_lost_reason(std::string_view error);

enum class CaseLoss { none, process_died, timed_out, device_lost };
// How an ERRORED row's case was lost, from the wording above; none for any other row.
CaseLoss case_loss(const CaseResult& row);

}  // namespace mlacheck
