#pragma once
// The reasons of rows whose case took its process or device down, worded in one place: the case
// isolation (run/isolated_cases.hpp) writes them beside the row's typed error kind (crashed,
// timed_out, device_lost: core/disposition.hpp). The wording is for people; what the row is, the
// kind says, and nothing reads it back from here.
#include <string>
#include <string_view>

namespace mlacheck {

// "<process> died while running this case: <how>", e.g. how = "signal 6 (Aborted)".
std::string process_died_reason(std::string_view process, std::string_view how);
// "timed out after <limit> s (watchdog); <process> was killed".
std::string watchdog_reason(double limit_s, std::string_view process);
// "device lost: <error>": a sticky GPU error (illegal address, kernel trap); the context is gone.
std::string device_lost_reason(std::string_view error);

}  // namespace mlacheck
