#include "harness/lost_case.hpp"

namespace mlacheck {

std::string process_died_reason(std::string_view process, std::string_view how) {
  return std::string(process) + " died while running this case: " + std::string(how);
}

std::string watchdog_reason(double limit_s, std::string_view process) {
  return "timed out after " + std::to_string(static_cast<long long>(limit_s)) + " s (watchdog); " +
         std::string(process) + " was killed";
}

std::string device_lost_reason(std::string_view error) { return "device lost: " + std::string(error); }

}  // namespace mlacheck
