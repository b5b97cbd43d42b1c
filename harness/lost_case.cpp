#include "harness/lost_case.hpp"

namespace mlacheck {

namespace {
constexpr std::string_view kDied = " died while running this case: ";
constexpr std::string_view kWatchdog = " s (watchdog); ";
constexpr std::string_view kDeviceLost = "device lost: ";
}  // namespace

std::string process_died_reason(std::string_view process, std::string_view how) {
  return std::string(process) + std::string(kDied) + std::string(how);
}

std::string watchdog_reason(double limit_s, std::string_view process) {
  return "timed out after " + std::to_string(static_cast<long long>(limit_s)) + std::string(kWatchdog) +
         std::string(process) + " was killed";
}

std::string device_lost_reason(std::string_view error) { return std::string(kDeviceLost) + std::string(error); }

CaseLoss case_loss(const CaseResult& row) {
  if (row.state != ResultState::errored) return CaseLoss::none;
  if (row.reason.rfind(kDeviceLost, 0) == 0) return CaseLoss::device_lost;
  if (row.reason.find(kDied) != std::string::npos) return CaseLoss::process_died;
  if (row.reason.rfind("timed out after ", 0) == 0 && row.reason.find(kWatchdog) != std::string::npos) {
    return CaseLoss::timed_out;
  }
  return CaseLoss::none;
}

}  // namespace mlacheck
